import { useState } from 'react';
import type { PanicStatus } from '../../../shared/kiosk/calls.ts';
import { HoldButton } from '../components/hold-button.tsx';
import { useI18n, type MessageKey, type Translate } from '../i18n/index.tsx';
import { clockTime, secondsUntil } from '../kiosk/format.ts';
import { knownUncovered, panicIsOver, panicView, raiseAlarm, type PanicLine, type PanicSurroundings } from '../kiosk/panic-words.ts';
import { INCIDENT_STATUS_TEXT } from '../kiosk/words.ts';

export const PANIC_HOLD_MS = 2000;

interface PanicScreenProps {
  panic: PanicStatus | null;
  /** Whether the kiosk reaches the server, whether responders cover the gate, and who to call (set at setup). */
  around: PanicSurroundings;
  onPanic(): void;
  /** The guard's word on the SOS shown: "I called for help" or "False alarm" (kept and sent like the SOS). */
  onReport(report: PanicStatus['reports'][number]['report']): void;
}

const REPORTS = ['called_for_help', 'false_alarm'] as const;

const MARK = { alarm: '⚠ ', unknown: '? ', sent: '✓ ', sending: '', over: '' } as const;

/**
 * One large button that must be held for two seconds, so a brush or a lean never sends an SOS,
 * and then what happened to it, in one tone (panicView): the tick only while help is in hand,
 * the advice to raise the alarm another way whenever it is not. It makes no sound on purpose: a
 * guard under threat may not want the attacker to know help is coming.
 */
export function PanicScreen({ panic, around, onPanic, onReport }: PanicScreenProps) {
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
  const view = panic ? panicView(panic, around) : null;
  // Before any SOS: a gate nobody covers says so at the button, not after the dispatch window.
  const beforeAdvice = !panic && knownUncovered(around.coverage) ? raiseAlarm(around.alarmPhones, 'panic.noCoverageNow') : [];
  const advice = view?.advice ?? beforeAdvice;
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
        onStart={() => setTooShort(false)}
        onComplete={() => {
          setTooShort(false);
          setHeldAgain(Boolean(panic && !over));
          onPanic();
        }}
        onTooShort={() => setTooShort(true)}
      />
      <div
        className="panic-status"
        data-testid="panic-status"
        data-delivery={panic?.delivery ?? 'none'}
        data-incident-status={panic?.incidentStatus ?? ''}
        data-tone={view?.tone ?? 'none'}
      >
        {/* What happened scrolls when it runs long (Hausa, a long call list, under the banner at
            1024x600); the guard's two buttons below it never do: they stay in view (issue #48). */}
        <div className="panic-messages" data-testid="panic-messages">
          {/* "The nearest responder is sent" is not true where none is near: the advice below says what is. */}
          {!panic && !beforeAdvice.length && <p className="panic-explain">{t('panic.explain')}</p>}
          {tooShort && !panic && <p className="notice panic-too-short" data-testid="panic-too-short">{t('panic.tooShort')}</p>}
          {panic && heldAgain && !over && (
            <p className="notice panic-already" data-testid="panic-already">
              {t('panic.alreadySent', { time: clockTime(panic.pressedAt, language) })}
            </p>
          )}
          {panic && view && view.tone !== 'over' && (
            <p className={`panic-delivery panic-delivery-${view.tone}`} data-testid="panic-headline" data-key={view.headline.key}>
              {MARK[view.tone]}
              {t(view.headline.key, view.headline.params)}
            </p>
          )}
          {advice.map((item) => (
            <p key={item.key} className="panic-fallback" data-testid={item.key === 'panic.callPhones' ? 'panic-phones' : 'panic-fallback'}>
              {t(item.key, item.params)}
            </p>
          ))}
          {panic && (
            <>
              {panic.delivery === 'retrying' && (
                <p>
                  {t('panic.attempts', { count: panic.attempts })}
                  {panic.nextAttemptAt ? ` · ${t('panic.nextAttempt', { seconds: secondsUntil(panic.nextAttemptAt) })}` : ''}
                </p>
              )}
              {panic.incidentStatus && <p data-testid="panic-incident-status">{t('panic.status', { status: incidentStatus(panic.incidentStatus, t) })}</p>}
              {(view?.progress ?? []).map((item, index) => line(item, index, item.key === 'panic.responder' ? 'panic-responder' : undefined))}
            </>
          )}
        </div>
        {panic && !over && (
          <div className="panic-report" data-testid="panic-report">
            <p className="panic-report-title">{t('panic.reportTitle')}</p>
            <div className="panic-report-buttons">
              {REPORTS.map((report) => (
                <button key={report} type="button" className="button button-secondary" data-testid={`panic-report-${report}`} disabled={panic.reports.some((said) => said.report === report)} onClick={() => onReport(report)}>
                  {t(`panic.report.${report}`)}
                </button>
              ))}
            </div>
            {panic.reports.map((said) => (
              <p key={said.report} data-testid={`panic-reported-${said.report}`} data-delivery={said.delivery}>
                {t(`panic.reported.${said.report}`, { time: clockTime(said.at, language) })}
                {said.delivery === 'waiting' ? ` ${t('panic.reported.waiting')}` : ''}
              </p>
            ))}
          </div>
        )}
      </div>
    </section>
  );
}

function incidentStatus(status: string, t: Translate): string {
  const key = (INCIDENT_STATUS_TEXT as Record<string, MessageKey | undefined>)[status];
  return key ? t(key) : status.replace(/_/g, ' ');
}
