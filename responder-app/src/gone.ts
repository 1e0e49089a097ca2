import { call, type AnswerOf } from './api.ts';
import type { Notice } from './state.ts';

/**
 * Why an offer or an incident left the screen (issue #47), in plain words: the app asks the
 * server what became of its offer (`GET /offers/{offerId}`) instead of letting it vanish. Tsaro
 * control standing the responder down says who and why ("Stood down by Tsaro control (Kemi)").
 * The app speaks English only today; every sentence it shows for this is here, in one place.
 */
export type OfferOutcome = AnswerOf<'get', '/offers/{offerId}'>['offer'];

const FREE = 'You are free for the next incident.';

/** The notice for an offer that left the screen, or for the incident in hand (`title`) that did. */
export function goneNotice(outcome: OfferOutcome | null, what: { kind: 'offer' } | { kind: 'incident'; title: string }): Notice {
  if (outcome?.stood_down) {
    const { by, reason } = outcome.stood_down;
    const lost = what.kind === 'offer' ? 'The offer is withdrawn.' : `${what.title} is no longer yours.`;
    return { kind: 'stood-down', title: `Stood down by ${by}`, text: `${reason ? `Reason: ${reason}. ` : ''}${lost} ${FREE}` };
  }
  if (outcome?.incident_status === 'cancelled') {
    return { kind: 'cancelled', title: 'Cancelled by the partner', text: `${what.kind === 'incident' ? what.title : 'The incident'} was cancelled. ${FREE}` };
  }
  if (what.kind === 'offer') {
    if (outcome?.status === 'lost') return { kind: 'taken', title: 'Someone else took it', text: `Another responder accepted it first. ${FREE}` };
    if (outcome?.incident_status === 'resolved') return { kind: 'taken', title: 'Offer closed', text: `The incident is over. ${FREE}` };
    return { kind: 'taken', title: 'Offer closed', text: 'Another responder took it, or the partner cancelled it.' };
  }
  return { kind: 'stood-down', title: 'Stood down by Tsaro control', text: `${what.title} was given to another responder. ${FREE}` };
}

/** What became of the offer, or null when the server cannot say now (no link, an offer made again since). */
export async function offerOutcome(token: string, offerId: string): Promise<OfferOutcome | null> {
  try {
    const answer = await call(token, 'get', '/offers/{offerId}', { params: { path: { offerId } } });
    return answer.ok ? answer.body.offer : null;
  } catch {
    return null;
  }
}
