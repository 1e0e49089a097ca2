import { createPrivateKey } from 'node:crypto';
import { checkKioskCertificate, type CertificateCheck } from '../../../shared/node/kiosk-certificate.ts';
import { KioskCertificateClaims } from '../../../shared/schemas/kiosks.ts';
import { cachedCodeById, noteServerUse } from '../caches/codes.ts';
import type { CoreContext } from '../context.ts';
import type { KioskDb } from '../database.ts';
import { markVisitOut, visitById } from '../gate/visits-store.ts';
import { readIdentity } from '../identity/store.ts';
import { markPanicSent, panicById, setIncident } from '../panic/store.ts';
import { newOperation } from '../outbox/operations.ts';
import { enqueueOperation } from '../outbox/store.ts';
import type { OwnIdentity } from './channel.ts';
import type { PeerFact, PeerMessage, UseFact } from './facts.ts';
import { Peers, type PeerOptions } from './peers.ts';
import { decideUse, excessUses, ownerOf, type Ledger, type UseRecord } from './shared-uses.ts';
import { factsAfter, lastUseOf, recordFact, unsettledUsesOf } from './store.ts';

/**
 * The peer room (issue #49): what the gates of a site tell each other and how a gate decides a
 * pass's use with them. `Peers` (peers.ts) is the network; this file is the room's part of the
 * core: who this kiosk is to its peers, whom it trusts, what a fact heard does here, and the
 * shared decision on a use (`shared-uses.ts`, fed live).
 */

/** This kiosk's key and certificate, as the identity room keeps them; null before the first certificate. */
export function ownIdentity(db: KioskDb, kioskId: string): OwnIdentity | null {
  const row = readIdentity(db);
  if (!row?.certificate) return null;
  return { kioskId, certificate: row.certificate, privateKey: createPrivateKey({ key: Buffer.from(row.private_key, 'base64'), format: 'der', type: 'pkcs8' }) };
}

/**
 * Whether a peer's certificate holds here: this kiosk's own certificate says its organization,
 * environment and site, and the authority it was given is the only one it trusts.
 */
export function trustPeer(db: KioskDb, certificate: string, nowMs: number): CertificateCheck {
  const row = readIdentity(db);
  if (!row?.certificate || !row.authority_kid || !row.authority_public_key || !row.site_id) return { ok: false, reason: 'unknown_authority' };
  const own = KioskCertificateClaims.safeParse(JSON.parse(Buffer.from(row.certificate.split('.')[0]!, 'base64url').toString('utf8')));
  if (!own.success) return { ok: false, reason: 'unknown_authority' };
  return checkKioskCertificate(
    certificate,
    { authorities: [{ kid: row.authority_kid, site_id: row.site_id, public_key: row.authority_public_key }], organizationId: own.data.organization_id, environment: own.data.environment, siteId: row.site_id },
    nowMs,
  );
}

export type PeerRoomDeps = Pick<CoreContext, 'db' | 'kioskId' | 'clock' | 'newId' | 'nowIso' | 'logEvent' | 'logError'>;

/** The room's network, wired to the core's database and clock. Not started: `Background` starts it. */
export function createPeers(deps: PeerRoomDeps, options: PeerOptions): Peers {
  return new Peers(
    {
      kioskId: deps.kioskId,
      identity: () => ownIdentity(deps.db, deps.kioskId),
      trust: (certificate) => trustPeer(deps.db, certificate, deps.clock.now().getTime()),
      factsAfter: (seq, limit) => factsAfter(deps.db, seq, limit),
      absorb: (facts) => absorbFacts(deps, facts),
      decideAsOwner: (ask) => {
        const decided = decideAsOwner(deps, ask);
        return { admit: decided.admit, lastUse: decided.admit ? null : decided.lastUse };
      },
      logEvent: deps.logEvent,
      logError: deps.logError,
    },
    options,
  );
}

/**
 * Facts heard from a peer, in one transaction: each kept once, and what a new one changes here
 * applied with it. A settlement teaches the code cache the server's count; a check-out another
 * gate asks this one to replay (the visit was recorded here) closes the visit and queues it.
 */
export function absorbFacts(deps: PeerRoomDeps, facts: PeerFact[]): PeerFact[] {
  const { db } = deps;
  const fresh: PeerFact[] = [];
  db.transaction(() => {
    for (const fact of facts) {
      if (!recordFact(db, fact, deps.nowIso())) continue;
      fresh.push(fact);
      if (fact.kind === 'settled') noteServerUse(db, fact.codeId, fact.useCount);
      if (fact.kind === 'checkout' && fact.delegated) replayCheckoutHere(deps, fact);
      if (fact.kind === 'panic' && fact.state === 'sent' && fact.kioskId === deps.kioskId && fact.incidentId) learnSosCarried(deps, fact);
    }
  })();
  reportExcessOnMeeting(deps, fresh);
  return fresh;
}

/**
 * This gate's SOS, carried to the server by another gate: it is sent, with the incident the server
 * made, and this gate follows that incident (and stops sending) like one it sent itself.
 */
function learnSosCarried(deps: PeerRoomDeps, fact: Extract<PeerFact, { kind: 'panic' }>): void {
  const panic = panicById(deps.db, fact.panicId);
  if (!panic || panic.state !== 'pending') return;
  setIncident(deps.db, fact.panicId, { incidentId: fact.incidentId!, status: fact.incidentStatus ?? 'reported', responder: null }, fact.at);
  markPanicSent(deps.db, fact.panicId);
  deps.logEvent(`the SOS pressed here at ${fact.pressedAt} reached the server through another gate (incident ${fact.incidentId})`);
}

/** Only the kiosk that recorded a visit can have its log id to come: it queues the check-out another gate made. */
function replayCheckoutHere(deps: PeerRoomDeps, fact: Extract<PeerFact, { kind: 'checkout' }>): void {
  const visit = visitById(deps.db, fact.visitId);
  if (!visit || visit.origin !== 'kiosk' || visit.state !== 'inside') return;
  markVisitOut(deps.db, visit.visit_id, fact.at);
  enqueueOperation(
    deps.db,
    newOperation(deps, new Date(fact.at), {
      kind: 'checkout',
      ...(visit.log_id ? { pathParams: { logId: visit.log_id } } : {}),
      body: {
        checkout_notes: `${fact.notes ? `${fact.notes} ` : ''}(checked out at ${fact.gate})`.slice(0, 2000),
        ...(fact.by ? { recorded_by: fact.by } : {}),
        checked_out_at: fact.at,
      },
      visitId: visit.visit_id,
      decisionId: null,
    }),
  );
}

/**
 * Gates that decided apart meet again: every gate computes the same excess from the merged
 * ledger; this one logs the excess uses it recorded itself (the server hears of each when this
 * gate replays it, as `admitted_offline`).
 */
function reportExcessOnMeeting(deps: PeerRoomDeps, fresh: PeerFact[]): void {
  const codes = new Set(fresh.flatMap((fact) => (fact.kind === 'use' && fact.kioskId !== deps.kioskId ? [fact.codeId] : [])));
  for (const codeId of codes) {
    const code = cachedCodeById(deps.db, codeId);
    if (!code) continue;
    const { ledger, remaining } = ledgerOf(deps.db, deps.kioskId, codeId, code);
    for (const use of excessUses(ledger, codeId, remaining)) {
      if (use.kioskId === deps.kioskId) deps.logEvent(`the use of ${code.code} admitted here at ${use.at} was one more than the pass allows (the gates were apart); the server hears of it when this gate replays it`);
    }
  }
}

interface PassCount {
  max_uses: number;
  use_count: number;
  local_uses: number;
}

/**
 * The pass's ledger as this kiosk knows it (the uses the server has not counted yet, any gate's)
 * and the uses it had left when the server last said. Uses this kiosk made before it kept a
 * ledger are counted as spent.
 */
function ledgerOf(db: KioskDb, me: string, codeId: string, code: PassCount): { ledger: Ledger; remaining: number } {
  const uses = unsettledUsesOf(db, codeId);
  const mine = uses.filter((use) => use.kioskId === me).length;
  const remaining = code.max_uses - code.use_count - Math.max(0, code.local_uses - mine);
  const ledger: Ledger = new Map([[codeId, new Map(uses.map((use): [string, UseRecord] => [use.useId, toRecord(use)]))]]);
  return { ledger, remaining };
}

const toRecord = (use: UseFact): UseRecord => ({ useId: use.useId, code: use.codeId, kioskId: use.kioskId, gate: use.gate, at: use.at });

export type SharedUse = { admit: true } | { admit: false; lastUse: UseFact | null };

/** The decision of the group this kiosk is in, from its own ledger: admitted while the uses it knows are fewer. */
function decideHere(db: KioskDb, me: string, use: UseFact, code: PassCount): SharedUse {
  const { ledger, remaining } = ledgerOf(db, me, use.codeId, code);
  const decided = decideUse(ledger, use.codeId, remaining);
  if (decided.admit) return { admit: true };
  return { admit: false, lastUse: lastUseOf(db, use.codeId) ?? null };
}

/**
 * The pass has no use left by the uses this kiosk has heard of: it is refused as used up (with
 * where it was last used) before "Already inside", as the server orders its reasons.
 */
export function usedUpHere(db: KioskDb, me: string, codeId: string, code: PassCount): boolean {
  const { ledger, remaining } = ledgerOf(db, me, codeId, code);
  return !decideUse(ledger, codeId, remaining).admit;
}

/** A peer asks this kiosk, the pass's owner, for one more use: decided, and the use kept before the answer leaves. */
function decideAsOwner(deps: PeerRoomDeps, ask: Extract<PeerMessage, { type: 'ask' }>): SharedUse {
  const cached = cachedCodeById(deps.db, ask.use.codeId);
  const code: PassCount = cached
    ? { max_uses: cached.max_uses, use_count: Math.max(cached.use_count, ask.useCount), local_uses: cached.local_uses }
    : { max_uses: ask.maxUses, use_count: ask.useCount, local_uses: 0 };
  const decided = decideHere(deps.db, deps.kioskId, ask.use, code);
  if (decided.admit) recordFact(deps.db, ask.use, deps.nowIso());
  return decided;
}

/**
 * One more use of a pass, decided with the gates this one hears (docs/kiosk.md, "The gates of a
 * site"): by the pass's owner among them, asked over the peer channel, or here when this gate is
 * the owner, hears nobody, or the owner does not answer in time.
 */
export async function decideSharedUse(deps: { db: KioskDb; kioskId: string; peers: Pick<Peers, 'members' | 'ask'> }, use: UseFact, code: PassCount): Promise<SharedUse> {
  const owner = ownerOf(use.codeId, deps.peers.members());
  if (owner !== deps.kioskId) {
    const answer = await deps.peers.ask(owner, { use, maxUses: code.max_uses, useCount: code.use_count });
    if (answer) return answer.admit ? { admit: true } : { admit: false, lastUse: answer.lastUse };
  }
  return decideHere(deps.db, deps.kioskId, use, code);
}
