import { useEffect, useState } from 'react';
import { describeError, type Schemas } from '../api.ts';
import { Empty, ErrorNote, Phone, Time } from '../components/ui.tsx';
import { useConsole, useLoad } from '../context.tsx';
import { navigate } from '../router.tsx';
import { useSiteScope } from '../sites/site-scope.tsx';

type RollCall = Schemas['RollCall'];

/** Everyone working a roll call sees the others' ticks this soon. */
const SHARED_EVERY_MS = 3_000;

/** The evacuation roll call: take one, or open one being worked. */
export function RollCalls({ rollCallId }: { rollCallId: string | null }) {
  if (rollCallId) return <RollCallSheet rollCallId={rollCallId} />;
  return <RollCallList />;
}

function RollCallList() {
  const { client, can } = useConsole();
  const { siteId, chosen, sites } = useSiteScope();
  const list = useLoad((c) => c.get('/roll-calls', { params: { query: { limit: 20, site_id: siteId } } }), [siteId]);
  const siteName = (id: string | null) => (!chosen && id ? sites.find((site) => site.site_id === id)?.name : undefined);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const start = () => {
    setBusy(true);
    setError(null);
    // The chosen site's visitors and gates; with every site shown, everyone on every site.
    client.post('/roll-calls', { body: { site_id: siteId } }).then(
      (answer) => navigate(`/visitors/roll-call/${encodeURIComponent(answer.roll_call.roll_call_id)}`),
      (failure: unknown) => {
        setBusy(false);
        setError(describeError(failure));
      },
    );
  };
  return (
    <div className="stack" data-testid="roll-calls">
      {can('operateIncidents') && (
        <p className="row">
          <button type="button" className="danger" onClick={start} disabled={busy} data-testid="start-roll-call">
            {chosen ? `Take a roll call of ${chosen.name} now` : 'Take a roll call now'}
          </button>
          <span className="muted">
            Everyone on {chosen ? chosen.name : 'every site'} at this moment, with their phone, to tick off as they are found. Print it or work it together here.
          </span>
        </p>
      )}
      <ErrorNote error={error ?? list.error} />
      {list.data && list.data.results.length === 0 ? (
        <Empty title="No roll call yet">Take one in an evacuation or a drill.</Empty>
      ) : (
        <ul className="event-list">
          {list.data?.results.map((roll) => (
            <li key={roll.roll_call_id}>
              <a
                href={`/console/visitors/roll-call/${encodeURIComponent(roll.roll_call_id)}`}
                onClick={(event) => {
                  event.preventDefault();
                  navigate(`/visitors/roll-call/${encodeURIComponent(roll.roll_call_id)}`);
                }}
              >
                <Time iso={roll.created_at} />
              </a>{' '}
              {siteName(roll.site_id) ? ` at ${siteName(roll.site_id)}` : ''} by {roll.created_by.label}: {roll.accounted_for} of {roll.total} accounted for
              {roll.warnings.length > 0 && <span className="tag warn">may be incomplete</span>}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

function RollCallSheet({ rollCallId }: { rollCallId: string }) {
  const { client, environment, can } = useConsole();
  const { sites } = useSiteScope();
  const [roll, setRoll] = useState<RollCall | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [onlyMissing, setOnlyMissing] = useState(false);
  useEffect(() => {
    let current = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const read = () =>
      client.get('/roll-calls/{rollCallId}', { params: { path: { rollCallId } } }).then(
        (answer) => {
          if (!current) return;
          setRoll(answer.roll_call);
          setError(null);
          timer = setTimeout(read, SHARED_EVERY_MS);
        },
        (failure: unknown) => {
          if (!current) return;
          setError(describeError(failure));
          timer = setTimeout(read, SHARED_EVERY_MS * 2);
        },
      );
    void read();
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [client, environment, rollCallId]);
  const tick = async (logId: string, accounted: boolean) => {
    try {
      const answer = await client.patch('/roll-calls/{rollCallId}/entries/{logId}', { params: { path: { rollCallId, logId } }, body: { accounted_for: accounted } });
      setRoll((current) =>
        current && {
          ...current,
          ...answer.roll_call,
          entries: current.entries.map((entry) => (entry.log_id === logId ? answer.entry : entry)),
        },
      );
    } catch (failure) {
      setError(describeError(failure));
    }
  };
  if (!roll) return <ErrorNote error={error} />;
  const write = can('operateIncidents');
  const site = roll.site_id ? sites.find((known) => known.site_id === roll.site_id) : undefined;
  const entries = onlyMissing ? roll.entries.filter((entry) => !entry.accounted_for) : roll.entries;
  return (
    <div className="stack roll-call" data-testid="roll-call">
      <h2>
        Roll call{site ? ` of ${site.name}` : ''} at <Time iso={roll.created_at} /> by {roll.created_by.label}
        {roll.entry_points ? ` (${roll.entry_points.join(', ')})` : ''}
      </h2>
      <p className="roll-count" data-testid="roll-count">
        <strong>
          {roll.accounted_for} of {roll.total}
        </strong>{' '}
        accounted for{roll.total - roll.accounted_for > 0 ? `; ${roll.total - roll.accounted_for} still to find` : ': everyone'}.
      </p>
      {roll.warnings.length > 0 && (
        <div className="alert-bar warn" role="alert" data-testid="roll-warnings">
          <strong>This list may be incomplete.</strong>
          <ul className="plain-list">
            {roll.warnings.map((warning) => (
              <li key={`${warning.kiosk_id}-${warning.reason}`}>
                {warning.name ?? warning.entry_point}:{' '}
                {warning.reason === 'offline' ? (
                  <>
                    its kiosk was offline (last heard <Time iso={warning.last_seen_at} />
                    ), so who came in or left there may not be known
                  </>
                ) : (
                  <>
                    its kiosk had {warning.queued_operations} arrivals or departures not yet sent
                    {warning.oldest_queued_at ? (
                      <>
                        {' '}
                        (the oldest from <Time iso={warning.oldest_queued_at} />)
                      </>
                    ) : null}
                  </>
                )}
              </li>
            ))}
          </ul>
        </div>
      )}
      <p className="row no-print">
        <label>
          <input type="checkbox" checked={onlyMissing} onChange={(e) => setOnlyMissing(e.target.checked)} /> Only those not yet found
        </label>
        <button type="button" onClick={() => window.print()}>
          Print
        </button>
      </p>
      {roll.total === 0 ? (
        <Empty title="Nobody was on site">No visitor was checked in when the roll call was taken.</Empty>
      ) : (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Found</th>
                <th scope="col">Name</th>
                <th scope="col">Phone</th>
                <th scope="col">Came in at</th>
                <th scope="col">Since</th>
                <th scope="col">Ticked by</th>
              </tr>
            </thead>
            <tbody>
              {entries.map((entry) => (
                <tr key={entry.log_id} data-testid="roll-entry" data-log-id={entry.log_id} data-accounted={entry.accounted_for ? 'yes' : 'no'}>
                  <td>
                    <input
                      type="checkbox"
                      className="big-check"
                      aria-label={`${entry.visitor_name ?? 'Visitor'} found`}
                      checked={entry.accounted_for}
                      disabled={!write}
                      onChange={(e) => void tick(entry.log_id, e.target.checked)}
                    />
                  </td>
                  <td>{entry.visitor_name ?? '(erased)'}</td>
                  <td>{entry.visitor_phone ? <Phone phone={entry.visitor_phone} /> : '—'}</td>
                  <td>{entry.entry_point ?? '—'}</td>
                  <td>
                    <Time iso={entry.checked_in_at} />
                  </td>
                  <td>{entry.accounted_by ? entry.accounted_by.label : ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <ErrorNote error={error} />
    </div>
  );
}
