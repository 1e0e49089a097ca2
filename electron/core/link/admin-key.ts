import type { CoreContext } from '../context.ts';
import type { ServerAnswer } from './server-api.ts';

/** What the key check reads: the link (its settings, client and last check) and the log. */
export type KeyCheckDeps = Pick<CoreContext, 'link' | 'logEvent'>;

export const ADMIN_KEY_PROBLEM = 'KIOSK_API_KEY can manage the organization (admin scope): this kiosk refuses it. Give it a gate key with only the gate scopes';

/** Whether the kiosk's key may carry queued operations, and if not, why. */
export type KeyVerdict = { maySend: true } | { maySend: false; admin: true } | { maySend: false; admin: false; answer: Exclude<ServerAnswer, { kind: 'ok' }> };

/**
 * An admin key at a gate lets anyone there manage the organization. The setup screen refuses one
 * before saving it (a 403 from `GET /api-keys` is the proof); a key given by KIOSK_API_KEY is
 * proven here, once per key and run, before the first operation leaves under it, by the inline
 * send or the sync, whichever comes first. Until proven (no answer, a key the server refuses)
 * nothing queued leaves; an SOS does not ask (a life first).
 */
export async function checkKeyNotAdmin(ctx: KeyCheckDeps, timeoutMs: number): Promise<KeyVerdict> {
  const apiKey = ctx.link.settings?.apiKey;
  if (!ctx.link.api || apiKey === undefined) return { maySend: false, admin: false, answer: { kind: 'unavailable', status: null, message: 'This kiosk is not set up yet', retryAfterMs: null } };
  if (ctx.link.source !== 'environment') return { maySend: true };
  const known = ctx.link.keyCheck?.apiKey === apiKey ? ctx.link.keyCheck : undefined;
  if (known) return refuseIfAdmin(ctx, known.admin);
  const answer = await ctx.link.api.call('get', '/api-keys', { params: { query: { limit: 1 } }, timeoutMs });
  if (ctx.link.settings?.apiKey !== apiKey) return { maySend: false, admin: false, answer: { kind: 'unavailable', status: null, message: 'The key changed while it was checked', retryAfterMs: null } };
  if (answer.kind === 'ok') {
    ctx.link.keyCheck = { apiKey, admin: true };
    ctx.logEvent(ADMIN_KEY_PROBLEM);
    return refuseIfAdmin(ctx, true);
  }
  if (answer.kind === 'blocked' && answer.status === 403) {
    ctx.link.keyCheck = { apiKey, admin: false };
    return { maySend: true };
  }
  return { maySend: false, admin: false, answer };
}

function refuseIfAdmin(ctx: KeyCheckDeps, admin: boolean): KeyVerdict {
  if (!admin) return { maySend: true };
  ctx.link.net.problem = ADMIN_KEY_PROBLEM;
  return { maySend: false, admin: true };
}
