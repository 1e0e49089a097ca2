import { describe, expect, it } from 'vitest';
import type { PanicStatus } from '../../shared/kiosk/calls.ts';
import { panicBannerView, panicFallback, panicProgress, panicView, type PanicSurroundings } from '../../renderer/src/kiosk/panic-words.ts';

const sent: PanicStatus = {
  pressId: 'p1',
  pressedAt: '2026-11-23T09:00:00.000Z',
  delivery: 'sent',
  attempts: 1,
  lastError: null,
  nextAttemptAt: null,
  incidentId: 'inc_1',
  incidentStatus: 'dispatching',
  responder: null,
  updatedAt: '2026-11-23T09:00:00.000Z',
  statusCheckedAt: '2026-11-23T09:00:00.000Z',
  reportedAt: '2026-11-23T09:00:02.000Z',
  reports: [],
};
const responder = { name: 'Emeka Obi', phone: '+2348030000009', etaMinutes: 0 };
const keys = (panic: PanicStatus) => panicProgress(panic).map((line) => line.key);

describe('what the panic screen says about a sent SOS, at every incident status', () => {
  it('never pairs an incident that is over with a responder being found or an arrival time', () => {
    expect(keys({ ...sent, incidentStatus: 'cancelled' })).toEqual(['panic.over.cancelled']);
    expect(keys({ ...sent, incidentStatus: 'resolved', responder })).toEqual(['panic.over.resolved']);
  });

  it('finds a responder only while none is assigned, and says so when the service is calling more', () => {
    expect(keys({ ...sent, incidentStatus: 'created' })).toEqual(['panic.waitingResponder']);
    expect(keys({ ...sent, incidentStatus: 'dispatching' })).toEqual(['panic.waitingResponder']);
    expect(keys({ ...sent, incidentStatus: 'escalated' })).toEqual(['panic.escalated']);
    expect(keys({ ...sent, incidentStatus: 'unresponsive' })).toEqual(['panic.escalated']);
  });

  it('says "arriving now" rather than "about 0 min", and no arrival time once the responder is there', () => {
    expect(keys({ ...sent, incidentStatus: 'responding', responder })).toEqual(['panic.responder', 'panic.arrivingNow', 'panic.call']);
    expect(panicProgress({ ...sent, incidentStatus: 'assigned', responder: { ...responder, etaMinutes: 7 } })[1]).toEqual({ key: 'panic.eta', params: { minutes: 7 } });
    expect(keys({ ...sent, incidentStatus: 'on_scene', responder })).toEqual(['panic.responder', 'panic.onScene', 'panic.call']);
  });

  it("shows the responder's number as the guard dials it: 0803 000 0009, not +2348030000009 (issue #48)", () => {
    expect(panicProgress({ ...sent, incidentStatus: 'on_scene', responder }).at(-1)).toEqual({ key: 'panic.call', params: { phone: '0803 000 0009' } });
  });

  it('an SOS not yet sent tells the guard to raise the alarm another way, with the numbers set at setup', () => {
    for (const delivery of ['sending', 'retrying', 'refused'] as const) {
      expect(panicFallback({ ...sent, delivery, incidentStatus: null }, '112').map((line) => line.key)).toEqual(['panic.raiseAlarm', 'panic.callPhones']);
    }
    expect(panicFallback({ ...sent, delivery: 'retrying' }, null).map((line) => line.key)).toEqual(['panic.raiseAlarm']);
    expect(panicFallback(sent, '112')).toEqual([]);
  });
});

describe('the SOS as the guard reads it: the tick only while help is in hand', () => {
  const around: PanicSurroundings = { online: true, coverage: null, alarmPhones: 'Estate control 0803 000 0000' };
  const covered = { covered: true, simulated: false, respondersWithinRadius: 2, nearestKm: 3, radiusKm: 15, checkedAt: sent.reportedAt };
  const nobodyNear = { ...covered, covered: false, respondersWithinRadius: 0, nearestKm: null };
  const advice = (panic: PanicStatus, surroundings = around) => panicView(panic, surroundings).advice.map((line) => line.key);

  it('escalated: red "nobody has accepted", the advice with the numbers, and no tick', () => {
    const view = panicView({ ...sent, incidentStatus: 'escalated' }, around);
    expect(view).toMatchObject({ tone: 'alarm', headline: { key: 'panic.nobody' } });
    expect(advice({ ...sent, incidentStatus: 'escalated' })).toEqual(['panic.raiseAlarm', 'panic.callPhones']);
    expect(view.advice[1]!.params).toEqual({ phones: 'Estate control 0803 000 0000' });
  });

  it('nobody accepted and nobody near: no "still calling more responders" beside the advice (issue #35)', () => {
    for (const incidentStatus of ['escalated', 'unresponsive'] as const) {
      const view = panicView({ ...sent, incidentStatus }, { ...around, coverage: nobodyNear });
      expect(view.progress).toEqual([]);
      expect(view.advice.at(-1)!.key).toBe('panic.callPhones');
    }
    // With responders near, the service is still calling them.
    expect(panicView({ ...sent, incidentStatus: 'escalated' }, { ...around, coverage: covered }).progress.map((line) => line.key)).toEqual(['panic.escalated']);
  });

  it('the banner says it all in one bar at a gate nobody covers: nobody near, the advice and the numbers, until a responder has it (issue #35)', () => {
    const keysOf = (incidentStatus: string, coverage: PanicSurroundings['coverage']) => panicBannerView({ ...sent, incidentStatus }, { ...around, coverage });
    const escalated = keysOf('escalated', nobodyNear);
    expect(escalated.saysCoverage).toBe(true);
    expect(escalated.advice.map((line) => line.key)).toEqual(['panic.noCoverageNow', 'panic.callPhones']);
    const still = keysOf('unresponsive', nobodyNear);
    expect(still.advice.map((line) => line.key)).toEqual([still.advice[0]!.key, 'panic.noResponderNear', 'panic.callPhones']);
    expect(still.advice[0]!.key).not.toBe('panic.noResponderNear');
    // Covered, unknown, or a responder assigned: the status bar keeps its own line.
    expect(keysOf('escalated', covered).saysCoverage).toBe(false);
    expect(keysOf('escalated', null).saysCoverage).toBe(false);
    expect(panicBannerView({ ...sent, incidentStatus: 'assigned', responder }, { ...around, coverage: nobodyNear }).saysCoverage).toBe(false);
  });

  it('while the call list is being texted, the numbers that are not (112, a landline) are named for the guard to call (issue #48)', () => {
    const withUntexted = { ...around, untextedPhones: 'Police 112' };
    for (const incidentStatus of ['escalated', 'unresponsive'] as const) {
      const view = panicView({ ...sent, incidentStatus }, withUntexted);
      expect(view.advice.at(-1)).toEqual({ key: 'panic.notTexted', params: { phones: 'Police 112' } });
    }
    // Before the alarm goes to the call list, nothing is said about texts.
    expect(advice({ ...sent, delivery: 'retrying' }, withUntexted)).not.toContain('panic.notTexted');
  });

  it('unresponsive: the same, more urgent', () => {
    const view = panicView({ ...sent, incidentStatus: 'unresponsive' }, around);
    expect(view).toMatchObject({ tone: 'alarm', headline: { key: 'panic.nobodyUrgent' } });
    expect(advice({ ...sent, incidentStatus: 'unresponsive' })).toEqual(['panic.callNowUrgent', 'panic.callPhones']);
  });

  it('a responder who accepts late takes the alarm away: the tick, the name, no advice', () => {
    const view = panicView({ ...sent, incidentStatus: 'assigned', responder: { ...responder, etaMinutes: 9 } }, around);
    expect(view).toMatchObject({ tone: 'sent', headline: { key: 'panic.sent' }, advice: [] });
  });

  it('the link down: amber "status unknown" at once, the advice once the status is stale, never the tick', () => {
    const justNow = panicView({ ...sent, incidentStatus: 'assigned', responder }, { ...around, online: false });
    expect(justNow).toMatchObject({ tone: 'unknown', headline: { key: 'panic.unknown' }, advice: [] });
    const stale = { ...sent, statusCheckedAt: '2026-11-23T09:00:00.000Z', reportedAt: '2026-11-23T09:00:21.000Z' };
    expect(panicView(stale, { ...around, online: false })).toMatchObject({ tone: 'unknown' });
    expect(advice(stale, { ...around, online: false })).toEqual(['panic.raiseAlarm', 'panic.callPhones']);
    // A server that answers health but not the incident for as long is no better.
    expect(panicView(stale, around).tone).toBe('unknown');
  });

  it('a gate no responder covers says so at the press, not after the dispatch window', () => {
    const sending = { ...sent, delivery: 'sending' as const, incidentStatus: null, statusCheckedAt: null };
    expect(advice(sending, { ...around, coverage: nobodyNear })).toEqual(['panic.noCoverageNow', 'panic.callPhones']);
    expect(panicView(sent, { ...around, coverage: nobodyNear })).toMatchObject({ tone: 'alarm', headline: { key: 'panic.sentNoCoverage' } });
    expect(panicView(sent, { ...around, coverage: covered }).tone).toBe('sent');
    // Sandbox: the simulated network covers everywhere.
    expect(panicView(sent, { ...around, coverage: { ...nobodyNear, simulated: true } }).tone).toBe('sent');
  });

  it('the ETA counts down from when the kiosk heard it, to "arriving now"', () => {
    const onTheWay = { ...sent, incidentStatus: 'responding', responder: { ...responder, etaMinutes: 28, arriveBy: '2026-11-23T09:28:00.000Z' } };
    expect(panicProgress({ ...onTheWay, reportedAt: '2026-11-23T09:00:00.000Z' })[1]).toEqual({ key: 'panic.eta', params: { minutes: 28 } });
    expect(panicProgress({ ...onTheWay, reportedAt: '2026-11-23T09:20:30.000Z' })[1]).toEqual({ key: 'panic.eta', params: { minutes: 8 } });
    expect(panicProgress({ ...onTheWay, reportedAt: '2026-11-23T09:28:10.000Z' })[1]).toEqual({ key: 'panic.arrivingNow' });
  });
});
