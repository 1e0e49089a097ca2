import { useEffect, useState, type FormEvent } from 'react';
import { ErrorNote, Field } from '../components/ui.tsx';
import { answerOf, type StaffClient, type StaffSchemas, type StaffSession } from './client.ts';
import { useStaffLive } from './staff-live.tsx';

/**
 * The operations centre's duty panel (issue #47), below the queue: the open alerts (a panic, a
 * missed check-in, on shift but off duty, no fix, a status past its limit), each acknowledged by
 * a controller or supervisor; the areas a network admin draws (a circle, or a polygon typed as
 * points) and the shifts planned in them. Every staff role reads them; a network admin changes them.
 * All three come on the staff channel (./staff-live.tsx) as they change, never polled while it is up.
 */
type Area = StaffSchemas['ServiceArea'];
type Shift = StaffSchemas['Shift'];
type Alert = StaffSchemas['StaffAlert'];
type Roster = { responder_id: string; name: string; standing: string };

const ALERT_WORDS: Record<Alert['kind'], string> = {
  panic: 'Panic',
  missed_check_in: 'Missed check-in',
  on_shift_off_duty: 'On shift, off duty',
  on_shift_outside_area: 'On shift, outside the area',
  no_fix: 'No fix',
  status_overdue: 'Status too long',
};

const hour = (h: number) => `${String(h % 24).padStart(2, '0')}:00`;

/** "6.45, 3.47" lines into a closed GeoJSON ring of [longitude, latitude]. */
export function ringOf(text: string): [number, number][] {
  const points = text
    .split(/\n|;/)
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => line.split(/[ ,]+/).map(Number) as [number, number])
    .map(([latitude, longitude]) => [longitude, latitude] as [number, number]);
  const first = points[0];
  const last = points.at(-1);
  if (first && last && (first[0] !== last[0] || first[1] !== last[1])) points.push([first[0], first[1]]);
  return points;
}

export function DutyPanel({ client, session }: { client: StaffClient; session: StaffSession }) {
  const planner = session.staff.role === 'network_admin';
  const acknowledges = !planner;
  const live = useStaffLive();
  const alerts: Alert[] = live.data?.alerts ?? [];
  const areas: Area[] = live.data?.areas ?? [];
  const shifts: Shift[] = live.data?.shifts ?? [];
  const [roster, setRoster] = useState<Roster[]>([]);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (!planner) return;
    void answerOf(client.GET('/responders', { params: { query: { environment: 'live' } } })).then(
      ({ responders }) => setRoster(responders.filter((r) => r.standing !== 'retired')),
      () => undefined,
    );
  }, [client, planner]);

  const act = async (run: () => Promise<unknown>) => {
    setError(null);
    try {
      await run();
      await live.refresh();
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    }
  };

  return (
    <section className="stack" data-testid="duty-panel">
      <ErrorNote error={error} />
      <h2>Alerts</h2>
      {alerts.length === 0 ? (
        <p className="muted">No open alert.</p>
      ) : (
        <ul data-testid="alerts">
          {alerts.map((alert) => (
            <li key={alert.alert_id} className="row" data-kind={alert.kind}>
              <strong>{ALERT_WORDS[alert.kind]}</strong>
              <span>{alert.message}</span>
              <span className="muted small">since {new Date(alert.raised_at).toLocaleTimeString()}</span>
              {acknowledges && (
                <button type="button" onClick={() => void act(() => answerOf(client.POST('/alerts/{alertId}/acknowledge', { params: { path: { alertId: alert.alert_id } }, body: {} })))}>
                  Dealt with
                </button>
              )}
            </li>
          ))}
        </ul>
      )}

      <h2>Areas</h2>
      <table data-testid="areas">
        <thead>
          <tr>
            <th>Name</th>
            <th>Shape</th>
            <th>Shifts</th>
            {planner && <th />}
          </tr>
        </thead>
        <tbody>
          {areas.map((area) => (
            <tr key={area.area_id}>
              <td>{area.name}</td>
              <td>{area.shape.type === 'Circle' ? `circle, ${area.shape.radius_m} m` : `polygon, ${area.shape.coordinates[0].length - 1} points`}</td>
              <td>{area.shifts}</td>
              {planner && (
                <td>
                  <button type="button" aria-label={`Remove ${area.name}`} onClick={() => void act(() => answerOf(client.DELETE('/areas/{areaId}', { params: { path: { areaId: area.area_id } } })))}>
                    Remove
                  </button>
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
      {planner && <NewArea onCreate={(body) => act(() => answerOf(client.POST('/areas', { body })))} />}

      <h2>Shifts</h2>
      <table data-testid="shifts">
        <thead>
          <tr>
            <th>Responder</th>
            <th>Area</th>
            <th>Hours</th>
            <th>Now</th>
            {planner && <th />}
          </tr>
        </thead>
        <tbody>
          {shifts.map((shift) => (
            <tr key={shift.shift_id}>
              <td>{shift.responder_name}</td>
              <td>{shift.area_name}</td>
              <td>
                {hour(shift.start_hour)} to {hour(shift.end_hour)}
              </td>
              <td>{shift.on_now ? 'on shift' : ''}</td>
              {planner && (
                <td>
                  <button type="button" aria-label={`Remove the shift of ${shift.responder_name}`} onClick={() => void act(() => answerOf(client.DELETE('/shifts/{shiftId}', { params: { path: { shiftId: shift.shift_id } } })))}>
                    Remove
                  </button>
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
      {planner && <NewShift areas={areas} roster={roster} onCreate={(body) => act(() => answerOf(client.POST('/shifts', { body })))} />}
    </section>
  );
}

function NewArea({ onCreate }: { onCreate: (body: StaffSchemas['NewServiceArea']) => Promise<void> }) {
  const [name, setName] = useState('');
  const [type, setType] = useState<'Circle' | 'Polygon'>('Circle');
  const [latitude, setLatitude] = useState('');
  const [longitude, setLongitude] = useState('');
  const [radius, setRadius] = useState('2000');
  const [points, setPoints] = useState('');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const shape: StaffSchemas['NewServiceArea']['shape'] =
      type === 'Circle' ? { type, center: [Number(longitude), Number(latitude)], radius_m: Number(radius) } : { type, coordinates: [ringOf(points)] };
    void onCreate({ name, shape }).then(() => setName(''));
  };
  return (
    <form onSubmit={submit} className="stack" data-testid="new-area">
      <Field label="Area name" id="area-name">
        <input id="area-name" required value={name} onChange={(e) => setName(e.target.value)} />
      </Field>
      <Field label="Shape" id="area-type">
        <select id="area-type" value={type} onChange={(e) => setType(e.target.value as 'Circle' | 'Polygon')}>
          <option value="Circle">Circle</option>
          <option value="Polygon">Polygon</option>
        </select>
      </Field>
      {type === 'Circle' ? (
        <div className="row">
          <Field label="Centre latitude" id="area-lat">
            <input id="area-lat" inputMode="decimal" required value={latitude} onChange={(e) => setLatitude(e.target.value)} />
          </Field>
          <Field label="Centre longitude" id="area-lng">
            <input id="area-lng" inputMode="decimal" required value={longitude} onChange={(e) => setLongitude(e.target.value)} />
          </Field>
          <Field label="Radius (m)" id="area-radius">
            <input id="area-radius" inputMode="numeric" required value={radius} onChange={(e) => setRadius(e.target.value)} />
          </Field>
        </div>
      ) : (
        <Field label="Corners, one per line: latitude, longitude (at least three)" id="area-points">
          <textarea id="area-points" rows={5} required value={points} onChange={(e) => setPoints(e.target.value)} />
        </Field>
      )}
      <button type="submit" className="primary">
        Draw area
      </button>
    </form>
  );
}

function NewShift({ areas, roster, onCreate }: { areas: Area[]; roster: Roster[]; onCreate: (body: StaffSchemas['NewShift']) => Promise<void> }) {
  const [responderId, setResponderId] = useState('');
  const [areaId, setAreaId] = useState('');
  const [start, setStart] = useState('8');
  const [end, setEnd] = useState('16');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void onCreate({ responder_id: responderId, area_id: areaId, start_hour: Number(start), end_hour: Number(end) });
  };
  const hours = Array.from({ length: 25 }, (_, h) => h);
  return (
    <form onSubmit={submit} className="row" data-testid="new-shift">
      <Field label="Responder" id="shift-responder">
        <select id="shift-responder" required value={responderId} onChange={(e) => setResponderId(e.target.value)}>
          <option value="">Choose…</option>
          {roster.map((r) => (
            <option key={r.responder_id} value={r.responder_id}>
              {r.name}
            </option>
          ))}
        </select>
      </Field>
      <Field label="Area" id="shift-area">
        <select id="shift-area" required value={areaId} onChange={(e) => setAreaId(e.target.value)}>
          <option value="">Choose…</option>
          {areas.map((a) => (
            <option key={a.area_id} value={a.area_id}>
              {a.name}
            </option>
          ))}
        </select>
      </Field>
      <Field label="From" id="shift-start">
        <select id="shift-start" value={start} onChange={(e) => setStart(e.target.value)}>
          {hours.slice(0, 24).map((h) => (
            <option key={h} value={h}>
              {hour(h)}
            </option>
          ))}
        </select>
      </Field>
      <Field label="To" id="shift-end">
        <select id="shift-end" value={end} onChange={(e) => setEnd(e.target.value)}>
          {hours.slice(1).map((h) => (
            <option key={h} value={h}>
              {h === 24 ? '24:00' : hour(h)}
            </option>
          ))}
        </select>
      </Field>
      <button type="submit" className="primary">
        Plan shift
      </button>
    </form>
  );
}
