import { deleteSetting } from '../settings-store.ts';
import type { PassClaims } from '../../../shared/pass.ts';
import type { AccessCode } from '../../../shared/schemas/access.ts';
import type { KioskDb } from '../database.ts';

/** A code as this kiosk knows it. */
export interface CachedCode {
  code_id: string;
  code: string;
  status: string;
  valid_from_ms: number;
  valid_until_ms: number;
  max_uses: number;
  use_count: number;
  /** Uses granted here offline that the server has not acknowledged yet. */
  local_uses: number;
  visitor_name: string | null;
  visitor_phone: string | null;
  purpose: string | null;
  host_user_id: string | null;
  entry_point: string | null;
  /** The site whose gates admit it (issue #34); null: made before sites, valid at every site. */
  site_id: string | null;
  from_feed: number;
  updated_at: string;
}

/**
 * Stores a page of the change feed and the cursor after it in one transaction, so a kiosk
 * switched off mid-sync resumes from a page it holds entirely. The uses granted here offline
 * are kept: the server learns of them only when the outbox replays them. A page asked for from
 * a cursor the kiosk no longer holds (the cache was emptied while it was on its way: the kiosk
 * moved to another server) is dropped, and false answered: the caller reads on from where the
 * cache now stands.
 */
export function applyFeedPage(db: KioskDb, codes: AccessCode[], fromCursor: number, nextCursor: number, at: string): boolean {
  const upsert = db.prepare(`
    INSERT INTO codes (code_id, code, status, valid_from_ms, valid_until_ms, max_uses, use_count, local_uses,
                       visitor_name, visitor_phone, purpose, host_user_id, entry_point, site_id, from_feed, updated_at)
    VALUES (@code_id, @code, @status, @valid_from_ms, @valid_until_ms, @max_uses, @use_count, 0,
            @visitor_name, @visitor_phone, @purpose, @host_user_id, @entry_point, @site_id, 1, @updated_at)
    ON CONFLICT (code_id) DO UPDATE SET
      code = excluded.code, status = excluded.status, valid_from_ms = excluded.valid_from_ms,
      valid_until_ms = excluded.valid_until_ms, max_uses = excluded.max_uses, use_count = excluded.use_count,
      visitor_name = excluded.visitor_name, visitor_phone = excluded.visitor_phone, purpose = excluded.purpose,
      host_user_id = excluded.host_user_id, entry_point = excluded.entry_point, site_id = excluded.site_id,
      from_feed = 1, updated_at = excluded.updated_at`);
  const saveCursor = db.prepare(`INSERT INTO settings (key, value) VALUES ('feed_cursor', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`);
  return db.transaction(() => {
    if (feedCursor(db) !== fromCursor) return false;
    for (const code of codes) {
      upsert.run({
        code_id: code.code_id,
        code: code.code,
        status: code.status,
        valid_from_ms: Date.parse(code.valid_from),
        valid_until_ms: Date.parse(code.valid_until),
        max_uses: code.max_uses,
        use_count: code.use_count,
        visitor_name: code.visitor_name,
        visitor_phone: code.visitor_phone,
        purpose: code.purpose,
        host_user_id: code.host_user_id,
        entry_point: code.entry_point,
        site_id: code.site_id,
        updated_at: at,
      });
    }
    saveCursor.run(String(nextCursor));
    return true;
  })();
}

/**
 * Empties the cache of codes and rewinds the feed, in one transaction, so the next sync reads
 * every code again from the start: the kiosk's site is new, and what it kept was another site's
 * view (or from before codes carried their site). Codes with uses granted here offline that
 * the server has not heard of yet are kept: without them a code's last use could be granted
 * twice; their site is known from their feed row or pass key.
 */
export function restartCodeFeed(db: KioskDb): void {
  db.transaction(() => {
    db.prepare('DELETE FROM codes WHERE local_uses = 0').run();
    db.prepare(`DELETE FROM settings WHERE key = 'feed_cursor'`).run();
  })();
}

/** Another server's codes are not ours: every code and the feed's cursor go. In the caller's transaction. */
export function forgetCodes(db: KioskDb): void {
  db.prepare('DELETE FROM codes').run();
  deleteSetting(db, 'feed_cursor');
}

export function feedCursor(db: KioskDb): number {
  const row = db.prepare(`SELECT value FROM settings WHERE key = 'feed_cursor'`).get() as { value: string } | undefined;
  return row ? Number(row.value) : 0;
}

export function cachedCodeById(db: KioskDb, codeId: string): CachedCode | undefined {
  return db.prepare('SELECT * FROM codes WHERE code_id = ?').get(codeId) as CachedCode | undefined;
}

/** Codes are unique among live codes only: prefer an active one, then the latest to end. */
export function cachedCodeByText(db: KioskDb, normalizedCode: string): CachedCode | undefined {
  return db
    .prepare(`SELECT * FROM codes WHERE code = ? ORDER BY status = 'active' DESC, valid_until_ms DESC LIMIT 1`)
    .get(normalizedCode) as CachedCode | undefined;
}

/** A pass never seen before, decided from its signed claims (its site from its key): kept so its uses are counted here too. */
export function rememberPass(db: KioskDb, claims: PassClaims, siteId: string | null, at: string): void {
  db.prepare(`
    INSERT INTO codes (code_id, code, status, valid_from_ms, valid_until_ms, max_uses, use_count, local_uses, site_id, from_feed, updated_at)
    VALUES (?, ?, 'active', ?, ?, ?, 0, 0, ?, 0, ?)
    ON CONFLICT (code_id) DO NOTHING`).run(claims.codeId, claims.code, claims.validFrom, claims.validUntil, claims.maxUses, siteId, at);
}

export function addLocalUse(db: KioskDb, codeId: string): void {
  db.prepare('UPDATE codes SET local_uses = local_uses + 1 WHERE code_id = ?').run(codeId);
}

/**
 * The server has answered a replayed offline admission: the use is no longer "local", and what
 * the server said about the code is what the cache holds until the feed says more.
 */
export function settleLocalUse(db: KioskDb, codeId: string, serverView: { useCount?: number; status?: string }): void {
  db.prepare(`
    UPDATE codes SET local_uses = MAX(local_uses - 1, 0),
      use_count = MAX(use_count, COALESCE(@useCount, use_count)),
      status = COALESCE(@status, status)
    WHERE code_id = @codeId`).run({ codeId, useCount: serverView.useCount ?? null, status: serverView.status ?? null });
}

/** An online answer: the cache learns the server's count at once, without waiting for the feed. */
export function noteServerUse(db: KioskDb, codeId: string, useCount: number): void {
  db.prepare('UPDATE codes SET use_count = MAX(use_count, ?) WHERE code_id = ?').run(useCount, codeId);
}

export function countCachedCodes(db: KioskDb): number {
  return (db.prepare('SELECT count(*) AS n FROM codes WHERE from_feed = 1').get() as { n: number }).n;
}

/** Retention: codes final (used, expired, revoked) with no use of this kiosk's unconfirmed, valid until before the cut-off; answers how many. */
export function pruneFinalCodes(db: KioskDb, beforeMs: number): number {
  return db.prepare(`DELETE FROM codes WHERE status <> 'active' AND local_uses = 0 AND valid_until_ms < ?`).run(beforeMs).changes;
}
