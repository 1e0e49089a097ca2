import { useState } from 'react';
import type { PanicStatus } from '../../../shared/kiosk/calls.ts';
import { HoldButton } from '../components/hold-button.tsx';
import { useI18n, type MessageKey, type Translate } from '../i18n/index.tsx';
import { clockTime, secondsUntil } from '../kiosk/format.ts';
import { panicFallback, panicIsOver, panicProgress, type PanicLine } from '../kiosk/panic-words.ts';
import { INCIDENT_STATUS_TEXT } from '../kiosk/words.ts';

export const PANIC_HOLD_MS = 2000;

interface PanicScreenProps {
  panic: PanicStatus | null;
  /** Who to call when the SOS cannot be sent (set at setup). */
  alarmPhones: string | null;
  onPanic(): void;
}

/**
 * One large button that must be held for two seconds, so a brush or a lean never sends an SOS,
 * and then what happened to it. It makes no sound on purpose: a guard under threat may not
 * want the attacker to know help is coming.
 */
export function PanicScreen({ panic, alarmPhones, onPanic }: PanicScreenProps) {
  const { t, language } = useI18n();
  const [tooShort, setTooShort] = useState(false);
  // A hold while an SOS is already out joins it: say so, with when it went.
  const [heldAgain, setHeldAgain] = useState(false);
  const line = (item: PanicLine, index: number, testId?: string) => (
    <p key={`${item.key}-${index}`} data-testid={testId} data-key={item.key}>
      {t(item.key, item.params)}
    </p>
  );
  const over = panicIsOver(panic);
  return (
    <section className="screen panic-screen" aria-label={t('panic.title')}>
      <HoldButton
        holdMs={PANIC_HOLD_MS}
        className="panic-button"
        label={
          <>
            <span className="panic-big">{t('panic.hold')}</span>
            <span className="panic-small">{t('panic.holdHint')}</span>
          </>
        }
        holdingLabel={<span className="panic-big">{t('panic.keepHolding')}</span>}
        onComplete={() => {
          setTooShort(false);
          setHeldAgain(Boolean(panic && !over));
          onPanic();
        }}
        onTooShort={() => setTooShort(true)}
      />
      <div className="panic-status" data-testid="panic-status" data-delivery={panic?.delivery ?? 'none'} data-incident-status={panic?.incidentStatus ?? ''}>
        {!panic && <p className="panic-explain">{t('panic.explain')}</p>}
        {tooShort && !panic && <p className="notice panic-too-short">{t('panic.tooShort')}</p>}
        {panic && heldAgain && !over && (
          <p className="notice panic-already" data-testid="panic-already">
            {t('panic.alreadySent', { time: clockTime(panic.pressedAt, language) })}
          </p>
        )}
        {panic && (
          <>
            {!over && (
              <p className={`panic-delivery panic-delivery-${panic.delivery === 'refused' ? 'retrying' : panic.delivery}`}>
                {panic.delivery === 'sent'
                  ? `✓ ${t('panic.sent')}`
                  : panic.delivery === 'sending'
                    ? t('panic.sending')
                    : panic.delivery === 'refused'
                      ? `⚠ ${t('panic.refused')}`
                      : `⚠ ${t('panic.notSent')}`}
              </p>
            )}
            {panicFallback(panic, alarmPhones).map((item, index) => (
              <p key={item.key} className="panic-fallback" data-testid={index === 0 ? 'panic-fallback' : 'panic-phones'}>
                {t(item.key, item.params)}
              </p>
            ))}
            {panic.delivery === 'retrying' && (
              <p>
                {t('panic.attempts', { count: panic.attempts })}
                {panic.nextAttemptAt ? ` · ${t('panic.nextAttempt', { seconds: secondsUntil(panic.nextAttemptAt) })}` : ''}
              </p>
            )}
            {panic.incidentStatus && <p data-testid="panic-incident-status">{t('panic.status', { status: incidentStatus(panic.incidentStatus, t) })}</p>}
            {panicProgress(panic).map((item, index) => line(item, index, item.key === 'panic.responder' ? 'panic-responder' : undefined))}
          </>
        )}
      </div>
    </section>
  );
}

function incidentStatus(status: string, t: Translate): string {
  const key = (INCIDENT_STATUS_TEXT as Record<string, MessageKey | undefined>)[status];
  return key ? t(key) : status.replace(/_/g, ' ');
}
