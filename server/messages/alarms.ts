import { INCIDENT_CATEGORIES, type IncidentCategory } from '../../shared/schemas/incidents.ts';
import { EMERGENCY_NUMBERS, type Site } from '../../shared/schemas/sites.ts';
import type { Executor, IncidentRow } from '../db/schema.ts';
import { getSite } from '../sites/service.ts';
import { whyNotTexted } from '../sites/call-list.ts';
import { queuedText, type TextingDeps } from './service.ts';
import { alarmedNumbers, insertMessages, insertStandDown, isStoodDown, withdrawQueuedAlarms } from './store.ts';
import { alarmNames, alarmText, allClearText, callBackNumber, type AlarmReason, type AlarmWords, type AllClearCause } from './templates.ts';

/**
 * The alarm loop (issues #35 and #48): the site's call list is texted when nobody comes
 * (escalated, unresponsive) and when the gate's guard calls for help; it is told once that the
 * alarm is over (the all-clear) when the guard reports a false alarm or the incident is cancelled
 * or resolved, and no alarm text follows. Each step is queued in the transaction that made it
 * happen, so a text exists exactly when its reason does.
 */

type AlarmIncident = Pick<
  IncidentRow,
  'incident_id' | 'organization_id' | 'environment' | 'is_drill' | 'site_id' | 'category' | 'landmark' | 'address' | 'subject_name' | 'subject_metadata'
>;

/** Nobody is texted for a sandbox incident or a drill, for an incident at no site, or while SMS is off. */
const textsCallList = (deps: TextingDeps, incident: AlarmIncident) =>
  Boolean(deps.gateway) && incident.environment === 'live' && Number(incident.is_drill) !== 1 && incident.site_id !== null;

/** The kiosk's SOS: its gate and, when a guard was on duty, the guard's name (electron/core/panic.ts). */
function fromKiosk(incident: AlarmIncident): { gate?: string; guard?: string } | undefined {
  try {
    const metadata = JSON.parse(incident.subject_metadata) as Record<string, unknown>;
    if (typeof metadata.kiosk_id !== 'string') return undefined;
    const gate = typeof metadata.entry_point === 'string' ? metadata.entry_point : undefined;
    // With nobody on duty the kiosk names the subject "Guard at <gate>": no one to name.
    return { gate, guard: incident.subject_name.startsWith('Guard at ') ? undefined : incident.subject_name };
  } catch {
    return undefined;
  }
}

/**
 * The number a text offers to call back: the first of the site's call list, in its order, that is
 * not the recipient's own and not an emergency short code (else the first short code: "call
 * 112"). Only an admin sets a call list; a number an incident carries (the subject's, the
 * kiosk's guard's) is any key holder's words and is never offered as one to call (issue #46).
 */
function callBackFor(site: Site, recipient: string): AlarmWords['callBack'] {
  const others = site.call_list.filter((entry) => entry.phone !== recipient);
  const full = others.find((entry) => !EMERGENCY_NUMBERS.includes(entry.phone));
  return callBackNumber((full ?? others[0])?.phone);
}

/** What each text to `recipient` says of the alarm: its category, gate, site, guard and call-back number. */
function wordsFor(incident: AlarmIncident, site: Site, recipient: string, guard: string | undefined): AlarmWords {
  const kiosk = fromKiosk(incident);
  const category = (INCIDENT_CATEGORIES as readonly string[]).includes(incident.category) ? (incident.category as IncidentCategory) : 'sos';
  return {
    category,
    ...alarmNames({ site: site.name, gate: kiosk?.gate ?? incident.landmark ?? incident.address, guard: guard ?? kiosk?.guard }),
    callBack: callBackFor(site, recipient),
  };
}

/**
 * Queues the alarm's texts to the incident's site's call list, each number once per alarm (the
 * table's unique index). Not after the alarm is over (a false alarm, cancelled, resolved), and
 * never to a number a text cannot reach (an emergency short code, a landline: call-list.ts).
 * `guard`: who reported, for the guard's own reports.
 */
export async function queueAlarmTexts(trx: Executor, deps: TextingDeps, incident: AlarmIncident, reason: AlarmReason, guard?: string): Promise<number> {
  if (!textsCallList(deps, incident) || (await isStoodDown(trx, incident.incident_id))) return 0;
  const site = await getSite(trx, { organizationId: incident.organization_id }, incident.site_id!);
  const rows = site.call_list
    .filter((entry) => whyNotTexted(entry.phone) === undefined)
    .map((entry) =>
      queuedText(deps, incident, {
        incident_id: incident.incident_id,
        site_id: site.site_id,
        reason,
        recipient_name: entry.name,
        phone: entry.phone,
        body: alarmText(reason, wordsFor(incident, site, entry.phone, guard), entry.language),
      }),
    );
  await insertMessages(trx, rows);
  return rows.length;
}

/** Why an alarm text not yet sent was withdrawn, by what ended the alarm. */
const WITHDRAWN: Record<AllClearCause, string> = {
  false_alarm: 'Withdrawn, not sent: the guard reported a false alarm',
  cancelled: 'Withdrawn, not sent: the incident was cancelled',
  resolved: 'Withdrawn, not sent: the incident was resolved',
};

/**
 * The alarm is over: once per incident, its alarm texts not yet sent are withdrawn, no alarm text
 * is queued after this, and each number an alarm text reached (or is reaching) is sent the
 * all-clear in its language. Nobody an alarm never reached is texted. Answers how many.
 */
export async function queueAllClear(trx: Executor, deps: TextingDeps, incident: AlarmIncident, cause: AllClearCause, guard?: string): Promise<number> {
  if (!textsCallList(deps, incident)) return 0;
  const now = deps.clock.now().toISOString();
  const first = await insertStandDown(trx, {
    incident_id: incident.incident_id,
    organization_id: incident.organization_id,
    environment: incident.environment,
    cause,
    stood_down_at: now,
  });
  if (!first) return 0;
  await withdrawQueuedAlarms(trx, incident.incident_id, now, WITHDRAWN[cause]);
  const numbers = await alarmedNumbers(trx, incident.incident_id, now);
  if (!numbers.length) return 0;
  const site = await getSite(trx, { organizationId: incident.organization_id }, incident.site_id!);
  const rows = numbers.map((number) =>
    queuedText(deps, incident, {
      incident_id: incident.incident_id,
      site_id: site.site_id,
      reason: 'all_clear',
      recipient_name: number.recipient_name,
      phone: number.phone,
      body: allClearText(cause, wordsFor(incident, site, number.phone, guard), site.call_list.find((entry) => entry.phone === number.phone)?.language),
    }),
  );
  await insertMessages(trx, rows);
  return rows.length;
}

/** The guard's word at the kiosk: "called for help" texts the call list; "false alarm" ends the alarm with the all-clear. */
export function queueGuardReportTexts(trx: Executor, deps: TextingDeps, incident: AlarmIncident, report: 'called_for_help' | 'false_alarm', guard?: string): Promise<number> {
  return report === 'false_alarm' ? queueAllClear(trx, deps, incident, 'false_alarm', guard) : queueAlarmTexts(trx, deps, incident, 'called_for_help', guard);
}
