import { useEffect } from 'react';
import type { ScanDecision } from '../../../shared/kiosk/calls.ts';
import { useI18n } from '../i18n/index.tsx';
import { REASON_TEXT } from '../kiosk/words.ts';

/** How long the answer stays before the kiosk goes back to scanning by itself. */
export const SHOW_ADMITTED_MS = 4000;
export const SHOW_REFUSED_MS = 6000;

interface ResultOverlayProps {
  decision: ScanDecision;
  onDone(): void;
}

/** The answer to a scan, over the whole screen but the status bar: green to let in, red not to. */
export function ResultOverlay({ decision, onDone }: ResultOverlayProps) {
  const { t } = useI18n();
  const showMs = decision.admitted ? SHOW_ADMITTED_MS : SHOW_REFUSED_MS;
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
            {t(headline)}
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
      {decision.decidedBy === 'offline' && <p className="result-offline">{t(decision.admitted ? 'result.offline' : 'result.offlineRefused')}</p>}
      <div className="result-footer">
        <div className="result-countdown" style={{ animationDuration: `${showMs}ms` }} />
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
