import { describe, expect, it } from 'vitest';
import { arriveView, assignView, boardOrder, handledByTsaro, incidentOf, laneOf, needsAcknowledgement, newer, onBoard, type Incident } from '../../console/src/live/incidents.ts';

const T0 = Date.parse('2026-11-26T10:00:00.000Z');
const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();

function incident(overrides: Partial<Incident> = {}): Incident {
  return {
    incident_id: 'inc_1',
    idempotency_key: null,
    category: 'sos',
    severity: 'critical',
    status: 'dispatching',
    subject: { name: 'Ada', phone: null, email: null, reference: null, metadata: {} },
    location: { coordinates: [3.47, 6.44], address: null, landmark: null },
    title: '[CRITICAL] SOS Emergency',
    description: null,
    is_drill: false,
    site_id: null,
    environment: 'live',
    version: 1,
    responder: null,
    handled_by: null,
    sla: { dispatch_deadline: at(60), escalation_deadline: at(300), seconds_to_assign: null, seconds_to_arrive: null },
    timeline: [{ status: 'created', event: 'created', message: '', timestamp: at(0) }],
    resolution_outcome: null,
    resolution_notes: null,
    created_at: at(0),
    updated_at: at(0),
    resolved_at: null,
    cancelled_at: null,
    ...overrides,
  };
}

describe("the live board's rules", () => {
  it('puts each status in its lane, what needs a person first', () => {
    expect(laneOf('escalated')).toBe('attention');
    expect(laneOf('unresponsive')).toBe('attention');
    expect(laneOf('created')).toBe('new');
    expect(laneOf('responding')).toBe('assigned');
    expect(laneOf('on_scene')).toBe('on_scene');
    expect(laneOf('cancelled')).toBe('closed');
  });

  it('an escalated incident needs acknowledging until an acknowledgement follows the latest escalation', () => {
    const escalated = incident({ status: 'escalated', timeline: [{ status: 'escalated', event: 'escalated', message: '', timestamp: at(61) }] });
    expect(needsAcknowledgement(escalated)).toBe(true);
    const acknowledged = { ...escalated, timeline: [...escalated.timeline, { status: 'escalated' as const, event: 'acknowledged' as const, message: 'Acknowledged by kemi', timestamp: at(70) }] };
    expect(needsAcknowledgement(acknowledged)).toBe(false);
    // Unresponsive after that acknowledgement: a new alarm.
    const worse = { ...acknowledged, status: 'unresponsive' as const, timeline: [...acknowledged.timeline, { status: 'unresponsive' as const, event: 'unresponsive' as const, message: '', timestamp: at(301) }] };
    expect(needsAcknowledgement(worse)).toBe(true);
    expect(needsAcknowledgement(incident({ status: 'assigned' }))).toBe(false);
  });

  it('keeps the newer version whichever arrives last, and reads the incident out of any incident event', () => {
    const v2 = incident({ version: 2, status: 'assigned' });
    expect(newer(v2, incident({ version: 1 }))).toBe(v2);
    expect(newer(incident({ version: 1 }), v2)).toBe(v2);
    expect(incidentOf({ id: 'evt_1', type: 'incident.updated', created_at: at(0), data: v2 as unknown as Record<string, unknown> })).toEqual(v2);
    expect(incidentOf({ id: 'evt_2', type: 'access_code.created', created_at: at(0), data: { code_id: 'x' } })).toBeNull();
  });

  it('orders SOS first, then newest; keeps a closed incident on the board for an hour', () => {
    const older = incident({ incident_id: 'a', created_at: at(0) });
    const newerSos = incident({ incident_id: 'b', created_at: at(10) });
    const medical = incident({ incident_id: 'c', category: 'medical', created_at: at(20) });
    expect([medical, older, newerSos].sort(boardOrder).map((i) => i.incident_id)).toEqual(['b', 'a', 'c']);
    const resolved = incident({ status: 'resolved', resolved_at: at(100) });
    expect(onBoard(resolved, T0 + 100_000 + 3_599_000)).toBe(true);
    expect(onBoard(resolved, T0 + 100_000 + 3_600_000)).toBe(false);
  });

  it('counts down to the dispatch deadline, then counts the time unassigned; an arrival reads as done', () => {
    expect(assignView(incident(), T0 + 15_000)).toEqual({ text: 'Assign within 0:45', tone: 'warn' });
    expect(assignView(incident(), T0 + 75_000)).toEqual({ text: 'Unassigned 1:15', tone: 'bad' });
    // No responder near its place: no countdown as if help were being found (issue #34).
    expect(assignView(incident(), T0 + 15_000, false)).toEqual({ text: 'No responder near: call for help now', tone: 'bad' });
    expect(assignView(incident(), T0 + 15_000, true)).toEqual({ text: 'Assign within 0:45', tone: 'warn' });
    const assigned = incident({ status: 'on_scene', sla: { ...incident().sla, seconds_to_assign: 38, seconds_to_arrive: 372 } });
    expect(assignView(assigned, T0)).toEqual({ text: 'Assigned in 0:38', tone: 'good' });
    expect(arriveView(assigned, T0)).toEqual({ text: 'On scene in 6:12', tone: 'good' });
  });
});

describe("the board's clock", () => {
  it('reads minutes and seconds, then hours, then days', async () => {
    const { clock } = await import('../../console/src/live/incidents.ts');
    expect(clock(65_000)).toBe('1:05');
    expect(clock(3_723_000)).toBe('1:02:03');
    expect(clock(5 * 86_400_000 + 3 * 3_600_000 + 59_000)).toBe('5 d 3 h');
    expect(clock(-5)).toBe('0:00');
  });
});

describe('who at Tsaro handles an incident', () => {
  it("is the incident's handled_by (the last controller who took it) until it ends", () => {
    expect(handledByTsaro(incident())).toBeNull();
    const handled = incident({ status: 'escalated', handled_by: 'Tsaro control (Bisi)' });
    expect(handledByTsaro(handled)).toBe('Tsaro control (Bisi)');
    expect(handledByTsaro({ ...handled, status: 'resolved', resolved_at: at(120) })).toBeNull();
  });
});
