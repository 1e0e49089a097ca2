import { useState } from 'react';
import type { PanicStatus } from '../../../shared/kiosk/calls.ts';
import { HoldButton } from '../components/hold-button.tsx';
import { useI18n, type MessageKey, type Translate } from '../i18n/index.tsx';
import { INCIDENT_STATUS_TEXT } from '../kiosk/words.ts';
import { secondsUntil } from '../kiosk/format.ts';

export const PANIC_HOLD_MS = 2000;

interface PanicScreenProps {
  panic: PanicStatus | null;
  onPanic(): void;
}

/**
 * One large button that must be held for two seconds, so a brush or a lean never sends an SOS,
 * and then what happened to it. It makes no sound on purpose: a guard under threat may not
 * want the attacker to know help is coming.
 */
export function PanicScreen({ panic, onPanic }: PanicScreenProps) {
  const { t } = useI18n();
  const [tooShort, setTooShort] = useState(false);
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
          onPanic();
        }}
        onTooShort={() => setTooShort(true)}
      />
      <div className="panic-status" data-testid="panic-status" data-delivery={panic?.delivery ?? 'none'}>
        {!panic && <p className="panic-explain">{t('panic.explain')}</p>}
        {tooShort && !panic && <p className="notice panic-too-short">{t('panic.tooShort')}</p>}
        {panic && (
          <>
            <p className={`panic-delivery panic-delivery-${panic.delivery === 'refused' ? 'retrying' : panic.delivery}`}>
              {panic.delivery === 'sent'
                ? `✓ ${t('panic.sent')}`
                : panic.delivery === 'sending'
                  ? t('panic.sending')
                  : panic.delivery === 'refused'
                    ? `⚠ ${t('panic.refused')}`
                    : `⚠ ${t('panic.notSent')}`}
            </p>
            {panic.delivery === 'retrying' && (
              <p>
                {t('panic.attempts', { count: panic.attempts })}
                {panic.nextAttemptAt ? ` · ${t('panic.nextAttempt', { seconds: secondsUntil(panic.nextAttemptAt) })}` : ''}
              </p>
            )}
            {panic.incidentStatus && <p data-testid="panic-incident-status">{t('panic.status', { status: incidentStatus(panic.incidentStatus, t) })}</p>}
            {panic.delivery === 'sent' && !panic.responder && <p>{t('panic.waitingResponder')}</p>}
            {panic.responder && (
              <>
                <p className="panic-responder" data-testid="panic-responder">
                  {t('panic.responder', { name: panic.responder.name })}
                </p>
                {panic.responder.etaMinutes !== null && <p>{t('panic.eta', { minutes: panic.responder.etaMinutes })}</p>}
                {panic.responder.phone && <p>{t('panic.call', { phone: panic.responder.phone })}</p>}
              </>
            )}
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
