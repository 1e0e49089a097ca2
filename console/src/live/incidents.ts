import type { Schemas } from '../api.ts';
import type { LiveEvent } from './event.ts';

export type Incident = Schemas['Incident'];
export type IncidentStatus = Schemas['IncidentStatus'];

/** The board's lanes, in the order an operator reads them: what needs a person first. */
export const LANES = [
  { id: 'attention', title: 'Nobody accepted', statuses: ['escalated', 'unresponsive'] },
  { id: 'new', title: 'Finding a responder', statuses: ['created', 'dispatching'] },
  { id: 'assigned', title: 'Assigned', statuses: ['assigned', 'responding'] },
  { id: 'on_scene', title: 'On scene', statuses: ['on_scene'] },
  { id: 'closed', title: 'Closed in the last hour', statuses: ['resolved', 'cancelled'] },
] as const satisfies readonly { id: string; title: string; statuses: readonly IncidentStatus[] }[];
export type LaneId = (typeof LANES)[number]['id'];

export const laneOf = (status: IncidentStatus): LaneId => LANES.find((lane) => (lane.statuses as readonly string[]).includes(status))!.id;

/** How long a closed incident stays on the board. */
export const CLOSED_SHOWN_MS = 3_600_000;

/** Whether an event's data is an incident: it names one, with its version and status. */
const isIncident = (value: unknown): value is Incident =>
  typeof value === 'object' &&
  value !== null &&
  'incident_id' in value &&
  typeof value.incident_id === 'string' &&
  'version' in value &&
  typeof value.version === 'number' &&
  'status' in value &&
  typeof value.status === 'string';

/** The incident an event carries, when it carries one (every `incident.*` event does). */
export function incidentOf(event: LiveEvent): Incident | null {
  if (!event.type.startsWith('incident.')) return null;
  const incident = event.data.incident ?? event.data;
  return isIncident(incident) ? incident : null;
}

/**
 * Where an incident is. The document types GeoJSON's `[longitude, latitude]` as a list of
 * numbers; null when it does not hold the pair.
 */
export function positionOf(incident: Incident): { latitude: number; longitude: number } | null {
  const [longitude, latitude] = incident.location.coordinates;
  return longitude === undefined || latitude === undefined ? null : { latitude, longitude };
}

/** The newer of two copies of one incident: events may arrive twice or after a list read. */
export function newer(current: Incident | undefined, next: Incident): Incident {
  return current && current.version > next.version ? current : next;
}

/**
 * Who at Tsaro is handling the incident, while it is active: the API's `handled_by` ("Tsaro
 * control (Kemi)", the last controller who took it); null when none has, or once it ended.
 */
export function handledByTsaro(incident: Incident): string | null {
  if (incident.resolved_at || incident.cancelled_at) return null;
  return incident.handled_by ?? null;
}

/** Escalated or unresponsive, and nobody has acknowledged it since it became so. */
export function needsAcknowledgement(incident: Incident): boolean {
  if (incident.status !== 'escalated' && incident.status !== 'unresponsive') return false;
  const timeline = incident.timeline;
  let last = -1;
  for (let i = 0; i < timeline.length; i += 1) if (timeline[i]!.event === 'escalated' || timeline[i]!.event === 'unresponsive') last = i;
  return !timeline.slice(last + 1).some((entry) => entry.event === 'acknowledged');
}

/** The gate an incident came from: a kiosk's SOS names its entry point. */
export const entryPointOf = (incident: Incident): string | null => incident.subject.metadata.entry_point ?? null;

/** Whether an incident is of the site shown (`siteId`), or every site is shown (undefined). */
export const inSite = (incident: Pick<Incident, 'site_id'>, siteId: string | undefined): boolean => !siteId || incident.site_id === siteId;

export const closedAt = (incident: Incident): string | null => incident.resolved_at ?? incident.cancelled_at;

/** Whether the board shows it at `now`: every active one, and what closed in the last hour. */
export function onBoard(incident: Incident, now: number): boolean {
  const closed = closedAt(incident);
  return !closed || now - Date.parse(closed) < CLOSED_SHOWN_MS;
}

/** Within a lane: SOS first, then newest first. */
export function boardOrder(a: Incident, b: Incident): number {
  const sos = Number(b.category === 'sos') - Number(a.category === 'sos');
  return sos || Date.parse(b.created_at) - Date.parse(a.created_at);
}

/** `4:05`, `1:02:03`, `5 d 3 h`: a span an operator reads at a glance. */
export function clock(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  if (total >= 86_400) return `${Math.floor(total / 86_400)} d ${Math.floor((total % 86_400) / 3600)} h`;
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = String(total % 60).padStart(2, '0');
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, '0')}:${seconds}` : `${minutes}:${seconds}`;
}

export interface SlaView {
  text: string;
  tone: 'good' | 'warn' | 'bad' | 'plain';
}

/** Time to assign against the dispatch deadline. */
export function assignView(incident: Incident, now: number, covered?: boolean): SlaView {
  const { sla } = incident;
  if (sla.seconds_to_assign !== null) {
    const late = Date.parse(incident.created_at) + sla.seconds_to_assign * 1000 > Date.parse(sla.dispatch_deadline);
    return { text: `Assigned in ${clock(sla.seconds_to_assign * 1000)}`, tone: late ? 'warn' : 'good' };
  }
  if (closedAt(incident)) return { text: 'Never assigned', tone: 'plain' };
  // Still looking, but no responder is near its place (`GET /dispatch/coverage`): no countdown, as if help were being found.
  if (covered === false && incident.status === 'dispatching') return { text: 'No responder near: call for help now', tone: 'bad' };
  const left = Date.parse(sla.dispatch_deadline) - now;
  return left >= 0 ? { text: `Assign within ${clock(left)}`, tone: 'warn' } : { text: `Unassigned ${clock(now - Date.parse(incident.created_at))}`, tone: 'bad' };
}

/** Time to on scene: done, the responder's ETA, or still waiting. */
export function arriveView(incident: Incident, now: number): SlaView {
  const { sla, responder } = incident;
  if (sla.seconds_to_arrive !== null) return { text: `On scene in ${clock(sla.seconds_to_arrive * 1000)}`, tone: 'good' };
  if (closedAt(incident)) return { text: 'Not on scene', tone: 'plain' };
  if (!responder) return { text: 'No responder yet', tone: 'plain' };
  const eta = responder.eta_minutes === null ? 'ETA unknown' : `ETA ${responder.eta_minutes} min`;
  return { text: `${eta} · ${clock(now - Date.parse(responder.assigned_at))} since accepted`, tone: 'plain' };
}
