import type { PanicStatus } from '../../../shared/kiosk/calls.ts';
import { useI18n } from '../i18n/index.tsx';
import { secondsUntil } from '../kiosk/format.ts';
import type { PanicBannerView } from '../kiosk/panic-words.ts';

const MARK = { alarm: '⚠ ', unknown: '? ', sent: '✓ ', sending: '', over: '' } as const;

/**
 * The SOS as it stands, on every screen, above everything else, until the incident is over. It
 * says what the panic screen says (panicBannerView): "not sent", "nobody accepted" and "status
 * unknown" are loud and cannot be closed, and carry the advice to raise the alarm another way
 * (and, at a gate no responder covers, that too: the status bar's line on it gives way); the
 * green tick only while the server says, recently, that the SOS is in hand.
 */
export function PanicBanner({ panic, view }: { panic: PanicStatus; view: PanicBannerView }) {
  const { t } = useI18n();
  const loud = view.tone === 'alarm' || view.tone === 'unknown';
  const progress = view.progress.filter((item) => item.key !== 'panic.call' && (view.tone === 'sent' || item.key.startsWith('panic.responder') || item.key === 'panic.eta'));
  return (
    <div
      className={`panic-banner panic-banner-${view.tone}`}
      role={loud ? 'alert' : 'status'}
      data-testid="panic-banner"
      data-delivery={panic.delivery}
      data-tone={view.tone}
      data-key={view.headline.key}
    >
      <strong>
        {MARK[view.tone]}
        {t(view.headline.key, view.headline.params)}
      </strong>
      {panic.delivery === 'refused' && panic.lastError && <span>{panic.lastError}</span>}
      {panic.delivery === 'retrying' && <span>{t('panic.attempts', { count: panic.attempts })}</span>}
      {panic.delivery === 'retrying' && panic.nextAttemptAt && <span>{t('panic.nextAttempt', { seconds: secondsUntil(panic.nextAttemptAt) })}</span>}
      {progress.map((item) => (
        <span key={item.key}>{t(item.key, item.params)}</span>
      ))}
      {view.advice.map((item) => (
        <span key={item.key} className="panic-advice" data-testid={item.key === 'panic.callPhones' ? 'banner-phones' : 'banner-advice'}>
          {t(item.key, item.params)}
        </span>
      ))}
    </div>
  );
}
