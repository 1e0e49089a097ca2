import type { KioskDb } from '../database.ts';
import { factIdOf, subjectOf, type CheckoutFact, type PanicFact, type PeerFact, type UseFact, type VisitFact } from './facts.ts';

/** The table `peer_facts` (schema version 7) and the only SQL on it. */

interface FactRow {
  seq: number;
  body: string;
}

/**
 * Keeps a fact once (by its id), recorded here or heard from a peer; answers whether it was new.
 * In the caller's transaction when the fact goes with other writes.
 */
export function recordFact(db: KioskDb, fact: PeerFact, receivedAt: string): boolean {
  return (
    db
      .prepare('INSERT INTO peer_facts (fact_id, kind, kiosk_id, subject, at, body, received_at) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (fact_id) DO NOTHING')
      .run(factIdOf(fact), fact.kind, fact.kioskId, subjectOf(fact), fact.at, JSON.stringify(fact), receivedAt).changes > 0
  );
}

export function hasFact(db: KioskDb, factId: string): boolean {
  return db.prepare('SELECT 1 FROM peer_facts WHERE fact_id = ?').get(factId) !== undefined;
}

/** Facts after `seq`, oldest first, at most `limit`: what to pass on. */
export function factsAfter(db: KioskDb, seq: number, limit: number): Array<{ seq: number; fact: PeerFact }> {
  return (db.prepare('SELECT seq, body FROM peer_facts WHERE seq > ? ORDER BY seq LIMIT ?').all(seq, limit) as FactRow[]).map((row) => ({
    seq: row.seq,
    fact: JSON.parse(row.body) as PeerFact,
  }));
}

export function lastFactSeq(db: KioskDb): number {
  return (db.prepare('SELECT COALESCE(MAX(seq), 0) AS seq FROM peer_facts').get() as { seq: number }).seq;
}

/** The uses of a pass the server has not counted yet (no settlement heard), any kiosk's. */
export function unsettledUsesOf(db: KioskDb, codeId: string): UseFact[] {
  return (
    db
      .prepare(`
        SELECT u.body FROM peer_facts u
        WHERE u.kind = 'use' AND u.subject = ?
          AND NOT EXISTS (SELECT 1 FROM peer_facts s WHERE s.fact_id = 'settled:' || substr(u.fact_id, 5))`)
      .all(codeId) as Array<{ body: string }>
  ).map((row) => JSON.parse(row.body) as UseFact);
}

/** The latest use of a pass this kiosk has heard of (settled or not): "Used at Main gate, 10:42". */
export function lastUseOf(db: KioskDb, codeId: string): UseFact | undefined {
  const row = db.prepare(`SELECT body FROM peer_facts WHERE kind = 'use' AND subject = ? ORDER BY at DESC, fact_id DESC LIMIT 1`).get(codeId) as { body: string } | undefined;
  return row ? (JSON.parse(row.body) as UseFact) : undefined;
}

/** A visit another gate recorded, as its facts say: open while no check-out is heard. */
export interface PeerVisit extends VisitFact {
  logId: string | null;
}

const PEER_VISITS = `
  SELECT v.body, l.body AS log FROM peer_facts v
  LEFT JOIN peer_facts l ON l.fact_id = 'visit_log:' || v.subject
  WHERE v.kind = 'visit' AND v.kiosk_id <> @me
    AND NOT EXISTS (SELECT 1 FROM peer_facts c WHERE c.fact_id = 'checkout:' || v.subject)`;

function toPeerVisit(row: { body: string; log: string | null }): PeerVisit {
  const visit = JSON.parse(row.body) as VisitFact;
  return { ...visit, logId: row.log ? (JSON.parse(row.log) as { logId: string }).logId : null };
}

/** The visits other gates opened and nobody has checked out, as far as this kiosk has heard. */
export function openPeerVisits(db: KioskDb, me: string): PeerVisit[] {
  return (db.prepare(`${PEER_VISITS} ORDER BY v.at`).all({ me }) as Array<{ body: string; log: string | null }>).map(toPeerVisit);
}

export function openPeerVisit(db: KioskDb, me: string, visitId: string): PeerVisit | undefined {
  const row = db.prepare(`${PEER_VISITS} AND (v.subject = @visitId OR json_extract(l.body, '$.logId') = @visitId)`).get({ me, visitId }) as
    | { body: string; log: string | null }
    | undefined;
  return row ? toPeerVisit(row) : undefined;
}

/** The earliest open visit of a pass at another gate: "Already inside since 10:42 (Main gate)". */
export function openPeerVisitOfCode(db: KioskDb, me: string, codeId: string): PeerVisit | undefined {
  const row = db.prepare(`${PEER_VISITS} AND json_extract(v.body, '$.codeId') = @codeId ORDER BY v.at LIMIT 1`).get({ me, codeId }) as { body: string; log: string | null } | undefined;
  return row ? toPeerVisit(row) : undefined;
}

/** Visits checked out at other gates: their ids, and their server log ids where known (the server's list names them so). */
export function checkedOutElsewhere(db: KioskDb, me: string): Set<string> {
  const rows = db
    .prepare(`
      SELECT c.subject AS visit_id, json_extract(l.body, '$.logId') AS log_id FROM peer_facts c
      LEFT JOIN peer_facts l ON l.fact_id = 'visit_log:' || c.subject
      WHERE c.kind = 'checkout' AND c.kiosk_id <> ?`)
    .all(me) as Array<{ visit_id: string; log_id: string | null }>;
  return new Set(rows.flatMap((row) => (row.log_id ? [row.visit_id, row.log_id] : [row.visit_id])));
}

/** A check-out another gate recorded of a visit, when it asks the visit's recorder to replay it. */
export function checkoutOf(db: KioskDb, visitId: string): CheckoutFact | undefined {
  const row = db.prepare(`SELECT body FROM peer_facts WHERE fact_id = ?`).get(`checkout:${visitId}`) as { body: string } | undefined;
  return row ? (JSON.parse(row.body) as CheckoutFact) : undefined;
}

/** The SOSes other gates raised that no gate has reported sent (nor closed): what a gate that reaches the server carries. */
export function unsentPeerPanics(db: KioskDb, me: string): PanicFact[] {
  return (
    db
      .prepare(`
        SELECT body FROM peer_facts p WHERE fact_id = 'panic:' || subject || ':pending' AND kiosk_id <> ?
          AND NOT EXISTS (SELECT 1 FROM peer_facts s WHERE s.fact_id IN ('panic:' || p.subject || ':sent', 'panic:' || p.subject || ':closed'))
        ORDER BY at`)
      .all(me) as Array<{ body: string }>
  ).map((row) => JSON.parse(row.body) as PanicFact);
}

/** Whether a gate has reported this SOS sent, and the incident it got. */
export function panicSentFact(db: KioskDb, panicId: string): PanicFact | undefined {
  const row = db.prepare('SELECT body FROM peer_facts WHERE fact_id = ?').get(`panic:${panicId}:sent`) as { body: string } | undefined;
  return row ? (JSON.parse(row.body) as PanicFact) : undefined;
}

/** Retention: facts older than the cut-off, except uses the server has not counted yet. */
export function pruneFacts(db: KioskDb, before: string): number {
  return db
    .prepare(`
      DELETE FROM peer_facts WHERE received_at < @before AND at < @before
        AND NOT (kind = 'use' AND NOT EXISTS (SELECT 1 FROM peer_facts s WHERE s.fact_id = 'settled:' || substr(peer_facts.fact_id, 5)))`)
    .run({ before }).changes;
}
