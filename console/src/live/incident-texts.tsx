import type { Schemas } from '../api.ts';
import { Phone, Time } from '../components/ui.tsx';
import { useLoad } from '../context.tsx';
import type { Incident } from './incidents.ts';
import { TextCeilingNote } from './text-ceilings.tsx';

const TEXT_TONE = { queued: 'warn', sent: 'warn', delivered: 'good', failed: 'bad', held: 'bad', merged: 'warn', withdrawn: 'muted' } as const satisfies Record<Schemas['TextMessageStatus'], string>;
const TEXT_REASON = {
  escalated: 'nobody accepted',
  unresponsive: 'unresponsive',
  called_for_help: 'guard called for help',
  false_alarm: 'guard: false alarm',
  all_clear: 'all clear',
  visitor_arrived: 'visitor arrived',
  visitor_pass: "visitor's pass",
} as const satisfies Record<Schemas['TextMessage']['reason'], string>;

/**
 * Who Tsaro texted about this incident (the site's call list, when nobody came), and how each
 * text stands (an alarm over an hourly ceiling is `merged` into one text with the number's
 * others); or why nobody is texted: no SMS gateway on this server, no site, a sandbox incident
 * or a drill.
 */
export function IncidentTexts({ incident }: { incident: Incident }) {
  const gateway = useLoad((c) => c.get('/messages/gateway'), []);
  const texts = useLoad(
    (c) => c.get('/messages', { params: { query: { incident_id: incident.incident_id, limit: 50 } } }),
    [incident.incident_id, incident.version],
  );
  const why =
    gateway.data && !gateway.data.enabled
      ? 'Text messages are off on this server (no SMS gateway is set): nobody is texted when an alarm is raised. Call the site\'s list yourself.'
      : incident.environment === 'sandbox' || incident.is_drill
        ? 'Sandbox incidents and drills text nobody.'
        : !incident.site_id
          ? 'This incident names no site, so there is no call list to text.'
          : null;
  const list = texts.data?.results ?? [];
  return (
    <section className="panel" aria-labelledby="texts" data-testid="incident-texts">
      <h2 id="texts">Text messages</h2>
      <TextCeilingNote gateway={gateway.data} />
      {texts.error && <p className="muted">{texts.error}</p>}
      {list.length === 0 && (
        <p className="muted" data-testid="texts-why">
          {why ??
            "Nobody has been texted: the site's call list is texted if nobody accepts in time, and again if it turns unresponsive; when the alarm ends (a false alarm, a cancellation, a resolution) each number it reached is sent the all-clear."}
        </p>
      )}
      {list.length > 0 && (
        <ul className="event-list">
          {list.map((text) => (
            <li key={text.message_id} data-status={text.status}>
              <Time iso={text.created_at} /> {text.recipient.name} <Phone phone={text.recipient.phone} /> ·{' '}
              {TEXT_REASON[text.reason]} ·{' '}
              <span className={`tag ${TEXT_TONE[text.status]}`}>{text.status}</span>
              {text.last_error && <span className="muted"> {text.last_error}</span>}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
