import { useEffect } from 'react';
import type { ScanDecision } from '../../../shared/kiosk/calls.ts';
import { useI18n } from '../i18n/index.tsx';
import { clockTime } from '../kiosk/format.ts';
import { REASON_TEXT } from '../kiosk/words.ts';

/** How long the answer stays before the kiosk goes back to scanning by itself. */
export const SHOW_ADMITTED_MS = 4000;
export const SHOW_REFUSED_MS = 6000;
/** "Already inside" waits for the guard's decision longer: they talk to the visitor first. */
export const SHOW_ALREADY_INSIDE_MS = 30_000;

interface ResultOverlayProps {
  decision: ScanDecision;
  onDone(): void;
  /** "Already inside": the guard lets the visitor in anyway (the same scan again, the override recorded). */
  onLetInAnyway?(): void;
}

/** The answer to a scan, over the whole screen but the status bar: green to let in, red not to. */
export function ResultOverlay({ decision, onDone, onLetInAnyway }: ResultOverlayProps) {
  const { t, language } = useI18n();
  const inside = decision.reason === 'already_inside' ? decision.alreadyInside : null;
  const showMs = decision.admitted ? SHOW_ADMITTED_MS : inside ? SHOW_ALREADY_INSIDE_MS : SHOW_REFUSED_MS;
  useEffect(() => {
    const timer = window.setTimeout(onDone, showMs);
    return () => window.clearTimeout(timer);
  }, [decision.decisionId, onDone, showMs]);

  const { headline, detail } = REASON_TEXT[decision.reason];
  return (
    <div
      className={`result ${decision.admitted ? 'result-admitted' : 'result-refused'}`}
      role="alert"
      data-decision={decision.admitted ? 'admitted' : 'refused'}
      data-reason={decision.reason}
      onClick={onDone}
    >
      <div className="result-verdict">
        <span className="result-icon" aria-hidden="true">
          {decision.admitted ? '✓' : '✕'}
        </span>
        <span>{decision.admitted ? t('result.admitted') : t('result.refused')}</span>
      </div>
      {decision.admitted ? (
        <>
          <div className={`result-name ${lengthClass(decision.visitor?.name)}`} data-testid="result-name">
            {decision.visitor?.name ?? t('result.noName')}
          </div>
          {decision.overrodeAlreadyInside && (
            <p className="result-detail" data-testid="result-overrode">
              {t('result.overrode')}
            </p>
          )}
          <dl className="result-facts">
            <div>
              <dt>{t('result.purpose')}</dt>
              <dd className="result-long-text">{decision.purpose ?? t('result.unknown')}</dd>
            </div>
            <div>
              <dt>{t('result.host')}</dt>
              <dd className="result-long-text">{decision.hostUserId ?? t('result.unknown')}</dd>
            </div>
            <div>
              <dt>{t('result.usesLeft')}</dt>
              <dd>{decision.usesLeft ?? t('result.unknown')}</dd>
            </div>
          </dl>
        </>
      ) : (
        <>
          <div className="result-reason" data-testid="result-reason">
            {inside
              ? inside.entryPoint
                ? t('reason.already_inside.since', { time: clockTime(inside.since, language), gate: inside.entryPoint })
                : t('reason.already_inside.sinceNoGate', { time: clockTime(inside.since, language) })
              : decision.reason === 'other_site' && decision.estate
                ? t('reason.other_site.named', { estate: decision.estate })
                : t(headline)}
          </div>
          {detail && <p className="result-detail">{t(detail)}</p>}
          {(decision.visitor?.name || decision.hostUserId) && (
            <p className="result-detail result-who" data-testid="result-who">
              {[decision.visitor?.name, decision.hostUserId ? `${t('result.host')}: ${decision.hostUserId}` : null].filter(Boolean).join(' · ')}
            </p>
          )}
        </>
      )}
      {/* Offline admissions are replayed to the server; offline refusals are not (nobody went in). */}
      {/* "Already inside" is known from the visits, whoever decided it: no "decided offline" line under it. */}
      {decision.decidedBy === 'offline' && !inside && <p className="result-offline">{t(decision.admitted ? 'result.offline' : 'result.offlineRefused')}</p>}
      <div className="result-footer">
        <div className="result-countdown" style={{ animationDuration: `${showMs}ms` }} />
        {inside && onLetInAnyway && (
          <button
            type="button"
            className="button button-secondary result-let-in"
            data-testid="result-let-in"
            onClick={(event) => {
              // The overlay's own click closes it; this one lets in instead.
              event.stopPropagation();
              onLetInAnyway();
            }}
          >
            {t('result.letInAnyway')}
          </button>
        )}
        <button type="button" className="button result-next" onClick={onDone}>
          {t('result.next')}
        </button>
      </div>
    </div>
  );
}

/** Names run up to 200 characters: a long one gets smaller type rather than pushing the rest off the screen. */
function lengthClass(name: string | null | undefined): string {
  const length = name?.length ?? 0;
  return length > 80 ? 'result-name-very-long' : length > 32 ? 'result-name-long' : '';
}
