import { Time } from '../components/ui.tsx';
import { Link } from '../router.tsx';
import { kioskLabel, useKiosks } from './use-kiosks.ts';

/** On the board: every gate whose kiosk has gone quiet (a retired one never shows). */
export function OfflineKiosks() {
  const { kiosks } = useKiosks();
  const offline = kiosks?.filter((kiosk) => kiosk.status === 'offline') ?? [];
  if (offline.length === 0) return null;
  return (
    <div className="alert-bar" role="alert" data-testid="kiosks-offline">
      <strong>
        {offline.length === 1 ? 'A gate kiosk is offline' : `${offline.length} gate kiosks are offline`}:
      </strong>
      <ul className="plain-list">
        {offline.map((kiosk) => (
          <li key={kiosk.kiosk_id}>
            {kioskLabel(kiosk)}, last heard <Time iso={kiosk.last_seen_at} relative />
            {kiosk.queued_operations > 0 ? ` with ${kiosk.queued_operations} operations waiting` : ''}
          </li>
        ))}
      </ul>
      <Link to="/kiosks">See the kiosks</Link>
    </div>
  );
}
