import type { CoreContext } from '../context.ts';
import type { ServerAnswer } from './server-api.ts';

/** Why a sync run ended early: it is tried again later (after `retryAfterMs` when the server said). */
export class SyncStopped extends Error {
  constructor(
    message: string,
    readonly retryAfterMs: number | null,
  ) {
    super(message);
  }
}

/** A 403: the key lacks a scope for this part of the sync, not the others. */
export class Forbidden extends SyncStopped {
  constructor(
    message: string,
    readonly problem: string,
  ) {
    super(message, null);
  }
}

/** Throws SyncStopped for anything but a 2xx: the sync ends there and is tried again later. */
export function okOrStop<T>(ctx: Pick<CoreContext, 'link'>, answer: ServerAnswer<T>): T {
  if (answer.kind === 'ok') return answer.body;
  if (answer.kind === 'blocked') {
    const problem = `The server refuses this kiosk's key (${answer.status}): ${answer.message}`;
    ctx.link.net.problem = problem;
    if (answer.status === 403) throw new Forbidden(answer.message, problem);
  }
  throw new SyncStopped(answer.message, answer.kind === 'unavailable' ? answer.retryAfterMs : null);
}
