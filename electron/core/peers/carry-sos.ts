import type { CoreContext } from '../context.ts';
import type { BodyOf } from '../link/server-api.ts';
import { recordFact, unsentPeerPanics } from './store.ts';

type CreateIncidentBody = BodyOf<'post', '/incidents'>;

export type CarryDeps = Pick<CoreContext, 'db' | 'kioskId' | 'link' | 'timings' | 'nowIso' | 'logEvent' | 'peers'>;

/**
 * When only one gate still reaches the server, it carries the others' SOS (issue #49): every SOS a
 * peer pressed that no gate has reported sent is posted as its own gate made it, with the same
 * `Idempotency-Key` header and body (whose `idempotency_key` the server keeps for good), so
 * however many gates carry it, and the pressing gate itself once its link returns, the server
 * makes one incident. The `sent` fact tells every gate, the pressing one included.
 */
export async function carryPeerPanics(deps: CarryDeps): Promise<void> {
  const api = deps.link.api;
  if (!api) return;
  for (const panic of unsentPeerPanics(deps.db, deps.kioskId)) {
    if (!panic.request || deps.link.inFlight.has(panic.panicId)) continue;
    deps.link.inFlight.add(panic.panicId);
    try {
      const answer = await api.call('post', '/incidents', {
        params: { header: { 'Idempotency-Key': panic.request.idempotencyKey } },
        body: JSON.parse(panic.request.body) as CreateIncidentBody,
        timeoutMs: deps.timings.requestTimeoutMs,
      });
      deps.link.noteAnswer(answer);
      if (answer.kind !== 'ok') continue;
      const at = deps.nowIso();
      const incident = answer.body.incident;
      recordFact(
        deps.db,
        { kind: 'panic', panicId: panic.panicId, kioskId: panic.kioskId, gate: panic.gate, state: 'sent', pressedAt: panic.pressedAt, at, incidentId: incident.incident_id, incidentStatus: incident.status, sentBy: deps.kioskId },
        at,
      );
      deps.logEvent(`carried the SOS pressed at ${panic.gate} (${panic.pressedAt}) to the server: incident ${incident.incident_id}`);
      deps.peers.announce();
    } finally {
      deps.link.inFlight.delete(panic.panicId);
    }
  }
}
