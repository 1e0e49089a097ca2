import { useState, type FormEvent } from 'react';
import { describeError } from '../api.ts';
import { ConfirmButton, Empty, ErrorNote, Time } from '../components/ui.tsx';
import { useConsole } from '../context.tsx';
import { kioskLabel, useKiosks, type Kiosk } from './use-kiosks.ts';
import { useSiteName } from '../sites/site-scope.tsx';
import { ScreenHeader } from '../components/layout.tsx';
import { describeClockSkew } from './clock-skew.ts';

const STATUS_TONE: Record<Kiosk['status'], string> = { online: 'good', offline: 'bad', retired: '' };

/** Every gate's kiosk: whether it is there, what it has not sent yet, and whether its clock can be trusted. */
export function KiosksScreen() {
  const { can } = useConsole();
  const { kiosks, error, reload } = useKiosks();
  const write = can('operateIncidents');
  return (
    <div className="stack" data-testid="screen-kiosks">
      <ScreenHeader title="Kiosks">
        Each gate's kiosk reports every 30 seconds. One not heard from for two minutes is offline: its guards may still be working, queuing what they do until
        the link returns.
      </ScreenHeader>
      <ErrorNote error={error} />
      {kiosks && kiosks.length === 0 ? (
        <Empty title="No kiosk has reported yet">A kiosk appears here after its first heartbeat, once it is set up with a gate key (see Gates).</Empty>
      ) : (
        <div className="table-wrap">
          <table className="kiosks-table">
            <thead>
              <tr>
                <th scope="col">Kiosk</th>
                <th scope="col">Status</th>
                <th scope="col">Last seen</th>
                <th scope="col">Waiting to send</th>
                <th scope="col">Needs attention</th>
                <th scope="col">Clock</th>
                <th scope="col">Version</th>
                {write && <th scope="col">Change</th>}
              </tr>
            </thead>
            <tbody>
              {kiosks?.map((kiosk) => (
                <KioskRow key={kiosk.kiosk_id} kiosk={kiosk} write={write} onChanged={reload} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}

function KioskRow({ kiosk, write, onChanged }: { kiosk: Kiosk; write: boolean; onChanged: () => void }) {
  const { client } = useConsole();
  const [renaming, setRenaming] = useState(false);
  const [name, setName] = useState(kiosk.name ?? '');
  const [error, setError] = useState<string | null>(null);
  const clock = describeClockSkew(kiosk.clock_skew_seconds);
  const site = useSiteName()(kiosk.site_id);
  // The client encodes the id into the path.
  const thisKiosk = { params: { path: { kioskId: kiosk.kiosk_id } } };
  const rename = (event: FormEvent) => {
    event.preventDefault();
    client.patch('/kiosks/{kioskId}', { ...thisKiosk, body: { name } }).then(
      () => (setRenaming(false), onChanged()),
      (failure: unknown) => setError(describeError(failure)),
    );
  };
  return (
    <tr data-testid="kiosk-row" data-kiosk-id={kiosk.kiosk_id} data-status={kiosk.status}>
      <td>
        {renaming ? (
          <form onSubmit={rename} className="row">
            <label className="visually-hidden" htmlFor={`name-${kiosk.kiosk_id}`}>
              Name of the kiosk at {kiosk.entry_point}
            </label>
            <input id={`name-${kiosk.kiosk_id}`} value={name} onChange={(e) => setName(e.target.value)} maxLength={200} required autoFocus />
            <button type="submit">Save</button>
            <button type="button" onClick={() => setRenaming(false)}>
              Cancel
            </button>
          </form>
        ) : (
          <>
            <strong>{kioskLabel(kiosk)}</strong>
            <br />
            <span className="muted" data-testid="kiosk-where">
              {site ? `${site} · ` : ''}
              {kiosk.name ? `${kiosk.entry_point} · ` : ''}
              <code>{kiosk.kiosk_id}</code>
            </span>
          </>
        )}
        <ErrorNote error={error} />
      </td>
      <td>
        <span className={`tag ${STATUS_TONE[kiosk.status]}`}>{kiosk.status}</span>
        {kiosk.offline_since && (
          <>
            <br />
            <span className="muted">
              since <Time iso={kiosk.offline_since} />
            </span>
          </>
        )}
      </td>
      <td>
        <Time iso={kiosk.last_seen_at} relative />
      </td>
      <td>
        {kiosk.queued_operations === 0 ? (
          'Nothing'
        ) : (
          <>
            <span className="tone-warn">{kiosk.queued_operations} operations</span>
            {kiosk.oldest_queued_at && (
              <>
                <br />
                <span className="muted">
                  oldest <Time iso={kiosk.oldest_queued_at} relative />
                </span>
              </>
            )}
          </>
        )}
      </td>
      <td>{kiosk.needs_attention === 0 ? 'None' : <span className="tone-bad">{kiosk.needs_attention}</span>}</td>
      <td className={clock.warn ? 'tone-bad' : ''} data-testid="kiosk-clock">
        {clock.text}
      </td>
      <td>{kiosk.app_version}</td>
      {write && (
        <td>
          {kiosk.status !== 'retired' && (
            <span className="row">
              <button type="button" className="link" onClick={() => setRenaming(true)}>
                Rename
              </button>
              <ConfirmButton
                label="Retire"
                question={`Retire the kiosk at ${kiosk.entry_point}? It will raise no offline alert.`}
                onConfirm={() => client.del('/kiosks/{kioskId}', thisKiosk).then(onChanged, (failure: unknown) => setError(describeError(failure)))}
              />
            </span>
          )}
        </td>
      )}
    </tr>
  );
}
