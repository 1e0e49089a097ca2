import type { KioskStatus } from '../../../shared/kiosk/calls.ts';
import { useI18n } from '../i18n/index.tsx';
import { ago, clockTime } from '../kiosk/format.ts';
import { knownUncovered } from '../kiosk/panic-words.ts';

interface StatusBarProps {
  status: KioskStatus | null;
  coreError: string | null;
  /** The SOS banner says no responder is near this gate: one red bar, not two (issue #35). */
  coverageInBanner: boolean;
  onOpenAttention(): void;
  /** Tapping what waits to be sent tries the server now, rather than at the next scheduled sync. */
  onSyncNow(): void;
}

/**
 * Always on top of every screen: the link, what waits to be sent, the last sync, what needs a
 * look; a test (sandbox) gate and a gate no on-duty responder covers say so on a line of their own
 * (the latter in the SOS banner instead, while one is up and says it), and so does an SOS pressed
 * at another gate of the site that no gate has got to the server.
 */
export function StatusBar({ status, coreError, coverageInBanner, onOpenAttention, onSyncNow }: StatusBarProps) {
  const { t, language } = useI18n();
  const online = !coreError && status?.online === true;
  const attention = status?.attentionCount ?? 0;
  return (
    <header className="status-bar" data-online={online} data-pending={status?.pendingOperations ?? 0}>
      <span className={`status-link ${online ? 'status-online' : 'status-offline'}`} data-testid="status-link">
        <span className="status-dot" aria-hidden="true">
          {online ? '●' : '▲'}
        </span>
        {online ? t('status.online') : t('status.offline')}
      </span>
      <button
        type="button"
        className={`status-pending ${status?.pendingOperations ? 'status-has-pending' : ''}`}
        data-testid="status-pending"
        title={t('status.syncNow')}
        onClick={onSyncNow}
      >
        {t('status.waiting', { count: status?.pendingOperations ?? 0 })}
      </button>
      <span className="status-sync" data-testid="status-sync" title={status?.lastSyncAt ? clockTime(status.lastSyncAt, language) : undefined}>
        {status?.syncing
          ? t('status.syncing')
          : status?.lastSyncAt
            ? t('status.lastSync', { time: ago(status.lastSyncAt, t) })
            : t('status.neverSynced')}
      </span>
      <span className="status-spacer" />
      <button
        type="button"
        className={`status-attention ${attention ? 'status-attention-on' : ''}`}
        data-testid="status-attention"
        onClick={onOpenAttention}
      >
        {attention ? `⚠ ${t('status.attention', { count: attention })}` : t('status.noAttention')}
      </button>
      {status?.problem && !coreError && (
        <span className="status-core-error" data-testid="status-problem">
          {t('status.problem', { problem: status.problem })}
        </span>
      )}
      {coreError && <span className="status-core-error">{t('error.coreDown')}</span>}
      {status?.environment === 'sandbox' && (
        <span className="status-line status-test-gate" data-testid="status-test-gate">
          <span aria-hidden="true">◆ </span>
          {t('status.testGate')}
        </span>
      )}
      {(status?.peers?.unsentSos ?? []).map((sos) => (
        // Another gate of the site pressed SOS and no gate has got it to the server (issue #49).
        <span key={`${sos.gate}-${sos.pressedAt}`} className="status-line status-no-coverage" role="alert" data-testid="status-peer-sos">
          <span aria-hidden="true">⚠ </span>
          {t('status.peerSos', { gate: sos.gate, time: clockTime(sos.pressedAt, language) })}
        </span>
      ))}
      {knownUncovered(status?.coverage ?? null) && !coverageInBanner && (
        <span className="status-line status-no-coverage" role="alert" data-testid="status-no-coverage">
          <span aria-hidden="true">⚠ </span>
          {t('status.noCoverage')}
        </span>
      )}
    </header>
  );
}
