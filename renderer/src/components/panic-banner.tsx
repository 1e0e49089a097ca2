import type { PanicStatus } from '../../../shared/kiosk/calls.ts';
import { useI18n } from '../i18n/index.tsx';
import { secondsUntil } from '../kiosk/format.ts';
import { panicFallback, panicProgress } from '../kiosk/panic-words.ts';

/**
 * The SOS as it stands, on every screen, above everything else, until the incident is over.
 * "Not sent yet" is loud (red, blinking border) and cannot be closed: only delivery clears it.
 */
export function PanicBanner({ panic, alarmPhones }: { panic: PanicStatus; alarmPhones: string | null }) {
  const { t } = useI18n();
  if (panic.delivery === 'refused') {
    return (
      <div className="panic-banner panic-banner-retrying" role="alert" data-testid="panic-banner" data-delivery="refused">
        <strong>⚠ {t('panic.refused')}</strong>
        {panic.lastError && <span>{panic.lastError}</span>}
        {panicFallback(panic, alarmPhones).slice(1).map((item) => <span key={item.key}>{t(item.key, item.params)}</span>)}
      </div>
    );
  }
  if (panic.delivery === 'retrying') {
    return (
      <div className="panic-banner panic-banner-retrying" role="alert" data-testid="panic-banner" data-delivery="retrying">
        <strong>⚠ {t('panic.notSent')}</strong>
        <span>{t('panic.attempts', { count: panic.attempts })}</span>
        {panic.nextAttemptAt && <span>{t('panic.nextAttempt', { seconds: secondsUntil(panic.nextAttemptAt) })}</span>}
        {panicFallback(panic, alarmPhones).map((item) => <span key={item.key}>{t(item.key, item.params)}</span>)}
      </div>
    );
  }
  if (panic.delivery === 'sending') {
    return (
      <div className="panic-banner panic-banner-sending" role="status" data-testid="panic-banner" data-delivery="sending">
        <strong>{t('panic.sending')}</strong>
      </div>
    );
  }
  return (
    <div className="panic-banner panic-banner-sent" role="status" data-testid="panic-banner" data-delivery="sent">
      <strong>✓ {t('panic.sent')}</strong>
      {panicProgress(panic)
        .filter((item) => item.key !== 'panic.call')
        .map((item) => (
          <span key={item.key}>{t(item.key, item.params)}</span>
        ))}
    </div>
  );
}
