import { describe, expect, it } from 'vitest';
import type { PanicStatus } from '../../shared/kiosk/calls.ts';
import { panicFallback, panicProgress } from '../../renderer/src/kiosk/panic-words.ts';

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

  it('an SOS not yet sent tells the guard to raise the alarm another way, with the numbers set at setup', () => {
    for (const delivery of ['sending', 'retrying', 'refused'] as const) {
      expect(panicFallback({ ...sent, delivery, incidentStatus: null }, '112').map((line) => line.key)).toEqual(['panic.raiseAlarm', 'panic.callPhones']);
    }
    expect(panicFallback({ ...sent, delivery: 'retrying' }, null).map((line) => line.key)).toEqual(['panic.raiseAlarm']);
    expect(panicFallback(sent, '112')).toEqual([]);
  });
});
