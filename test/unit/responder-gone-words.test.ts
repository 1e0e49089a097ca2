import { describe, expect, it } from 'vitest';
import { goneNotice, type OfferOutcome } from '../../responder-app/src/gone.ts';

/** The responder app's words when an offer or an incident leaves the screen (responder-app/src/gone.ts): pure. */
const outcome = (changes: Partial<OfferOutcome>): OfferOutcome => ({ offer_id: 'ofr_1', incident_id: 'inc_1', status: 'withdrawn', incident_status: 'dispatching', yours: false, stood_down: null, ...changes });
const stoodDown = { by: 'Tsaro control (Kemi)', reason: 'One is enough', at: '2026-11-29T13:00:00.000Z' };

describe("the phone's words for what left the screen", () => {
  it('stood down by Tsaro control: by whom and why, for an offer and for the incident in hand', () => {
    expect(goneNotice(outcome({ stood_down: stoodDown }), { kind: 'offer' })).toEqual({
      kind: 'stood-down',
      title: 'Stood down by Tsaro control (Kemi)',
      text: 'Reason: One is enough. The offer is withdrawn. You are free for the next incident.',
    });
    expect(goneNotice(outcome({ status: 'accepted', stood_down: stoodDown }), { kind: 'incident', title: 'Break-in' }).text).toBe('Reason: One is enough. Break-in is no longer yours. You are free for the next incident.');
  });

  it('taken by another, cancelled by the partner, over; and when the server cannot say, what it said before', () => {
    expect(goneNotice(outcome({ status: 'lost', incident_status: 'assigned' }), { kind: 'offer' }).title).toBe('Someone else took it');
    expect(goneNotice(outcome({ incident_status: 'cancelled' }), { kind: 'offer' })).toMatchObject({ kind: 'cancelled', title: 'Cancelled by the partner' });
    expect(goneNotice(outcome({ incident_status: 'resolved' }), { kind: 'offer' }).text).toBe('The incident is over. You are free for the next incident.');
    expect(goneNotice(null, { kind: 'offer' })).toEqual({ kind: 'taken', title: 'Offer closed', text: 'Another responder took it, or the partner cancelled it.' });
    expect(goneNotice(null, { kind: 'incident', title: 'Break-in' })).toEqual({ kind: 'stood-down', title: 'Stood down by Tsaro control', text: 'Break-in was given to another responder. You are free for the next incident.' });
  });
});
