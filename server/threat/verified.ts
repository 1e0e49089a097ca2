import type { Executor, IncidentRow } from '../db/schema.ts';
import { insertThreatEvents } from './store.ts';
import { SOURCE_WEIGHT, type ThreatType } from './taxonomy.ts';

/** What a verified incident says about a place's safety; medical emergencies say nothing and are left out. */
const TYPE_BY_CATEGORY: Record<string, ThreatType | undefined> = {
  sos: 'crime',
  location_threat: 'armed_robbery',
  vehicle: 'road_incident',
};
const SEVERITY: Record<string, number> = { low: 3, medium: 5, high: 7, critical: 9 };

/**
 * A resolved live incident whose outcome says it really happened becomes a threat event in the
 * same transaction: place, day, kind and severity, never the subject or the partner.
 */
export async function recordVerifiedThreatEvent(trx: Executor, incident: IncidentRow, resolvedAt: string): Promise<void> {
  const type = TYPE_BY_CATEGORY[incident.category];
  if (!type) return;
  await insertThreatEvents(trx, [
    {
      event_id: `verified:${incident.incident_id}`,
      source: 'verified',
      dataset: 'Tsaro verified incidents',
      occurred_on: incident.created_at.slice(0, 10),
      latitude: Number(incident.latitude),
      longitude: Number(incident.longitude),
      precision: 1,
      type,
      severity: SEVERITY[incident.severity] ?? 5,
      fatalities: 0,
      weight: SOURCE_WEIGHT.verified,
      country: null,
      admin1: null,
      admin2: null,
      place: null,
      description: null,
      imported_at: resolvedAt,
    },
  ]);
}
