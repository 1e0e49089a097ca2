import type Database from 'better-sqlite3';

/**
 * Versioned migrations, written once and never edited: version N is `KIOSK_MIGRATIONS[N - 1]`,
 * and `PRAGMA user_version` records the last one applied. Each runs in its own transaction with
 * the version bump, so a kiosk switched off mid-upgrade starts again from a whole version.
 */
export const KIOSK_MIGRATIONS: ReadonlyArray<(db: Database.Database) => void> = [
  function v1_initial(db) {
    db.exec(`
      CREATE TABLE settings (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
      );

      -- The organization's codes as the change feed last told us, plus the uses this kiosk
      -- granted offline that the server has not acknowledged yet.
      CREATE TABLE codes (
        code_id TEXT PRIMARY KEY,
        code TEXT NOT NULL,
        status TEXT NOT NULL,
        valid_from_ms INTEGER NOT NULL,
        valid_until_ms INTEGER NOT NULL,
        max_uses INTEGER NOT NULL,
        use_count INTEGER NOT NULL,
        local_uses INTEGER NOT NULL DEFAULT 0,
        visitor_name TEXT,
        visitor_phone TEXT,
        purpose TEXT,
        host_user_id TEXT,
        entry_point TEXT,
        -- 0: known only from a signed pass scanned offline, not yet from the feed.
        from_feed INTEGER NOT NULL,
        updated_at TEXT NOT NULL
      );
      CREATE INDEX codes_by_code ON codes (code);

      CREATE TABLE pass_keys (
        kid TEXT PRIMARY KEY,
        public_key TEXT NOT NULL,
        created_at TEXT NOT NULL
      );

      CREATE TABLE visits (
        visit_id TEXT PRIMARY KEY,
        log_id TEXT UNIQUE,
        method TEXT NOT NULL,
        code_id TEXT,
        visitor_name TEXT,
        visitor_phone TEXT,
        host_user_id TEXT,
        entry_point TEXT,
        checked_in_at TEXT NOT NULL,
        checked_out_at TEXT,
        -- inside | out | turned_away (a check-in the server refused and the guard turned back)
        state TEXT NOT NULL,
        -- kiosk: checked in here; server: learnt from the organization's current-visitor list
        origin TEXT NOT NULL
      );
      CREATE INDEX visits_inside ON visits (state, checked_in_at);

      -- The organization-wide current-visitor list as last fetched.
      CREATE TABLE server_visitors (
        log_id TEXT PRIMARY KEY,
        code_id TEXT,
        visitor_name TEXT,
        visitor_phone TEXT,
        entry_point TEXT,
        host_user_id TEXT,
        checked_in_at TEXT NOT NULL
      );

      -- Every scan and its decision, kept as the gate's journal.
      CREATE TABLE decisions (
        decision_id TEXT PRIMARY KEY,
        scanned_at TEXT NOT NULL,
        code_id TEXT,
        admitted INTEGER NOT NULL,
        decided_by TEXT NOT NULL,
        op_id TEXT,
        -- confirmed | refused (by the server on replay) | null (not replayed, or pending)
        server_outcome TEXT,
        decision TEXT NOT NULL
      );

      -- The outbox: what the server must learn, in the order it happened. Rows are kept once
      -- settled, as the journal of what was sent and what the server answered.
      CREATE TABLE outbox (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        op_id TEXT NOT NULL UNIQUE,
        kind TEXT NOT NULL,
        idempotency_key TEXT NOT NULL UNIQUE,
        method TEXT NOT NULL,
        -- null for a checkout whose visit's log_id the server has not answered yet
        path TEXT,
        body TEXT NOT NULL,
        visit_id TEXT,
        decision_id TEXT,
        -- pending | done | refused (a 4xx, now in the attention list) | withdrawn (never sent: an offline refusal)
        state TEXT NOT NULL,
        -- 1 once a request for it may have reached the server
        attempted INTEGER NOT NULL DEFAULT 0,
        attempts INTEGER NOT NULL DEFAULT 0,
        last_error TEXT,
        created_at TEXT NOT NULL,
        settled_at TEXT,
        status_code INTEGER,
        response TEXT
      );
      CREATE INDEX outbox_pending ON outbox (state, seq);

      CREATE TABLE attention (
        attention_id TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        operation TEXT NOT NULL,
        message TEXT NOT NULL,
        server_message TEXT NOT NULL,
        visitor_name TEXT,
        code TEXT,
        happened_at TEXT NOT NULL,
        log_id TEXT,
        op_id TEXT,
        -- the walk-in the kiosk queued so the server keeps a record of a visitor admitted offline
        follow_up_op_id TEXT,
        created_at TEXT NOT NULL,
        dismissed_at TEXT
      );
      CREATE INDEX attention_open ON attention (dismissed_at, created_at);

      -- One row per SOS incident; every press joining it is in panic_presses.
      CREATE TABLE panics (
        panic_id TEXT PRIMARY KEY,
        pressed_at TEXT NOT NULL,
        idempotency_key TEXT NOT NULL UNIQUE,
        body TEXT NOT NULL,
        -- pending | sent
        state TEXT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        last_error TEXT,
        next_attempt_at TEXT,
        incident_id TEXT,
        incident_status TEXT,
        responder TEXT,
        updated_at TEXT NOT NULL
      );
      CREATE TABLE panic_presses (
        press_id TEXT PRIMARY KEY,
        panic_id TEXT NOT NULL REFERENCES panics (panic_id),
        pressed_at TEXT NOT NULL
      );
    `);
  },

  function v2_panic_closed(db) {
    // A sent SOS the kiosk stopped following: its incident cannot be read (403/404), or the
    // kiosk moved to another server or key. A closed SOS is never joined by a new press.
    db.exec(`ALTER TABLE panics ADD COLUMN closed_at TEXT;`);
  },

  function v3_panic_reports(db) {
    // The guard's word on an SOS (issue #35): "I called for help" or "False alarm", kept until the
    // server has it, sent once the SOS's incident exists. One of each kind per SOS.
    db.exec(`
      CREATE TABLE panic_reports (
        report_id TEXT PRIMARY KEY,
        panic_id TEXT NOT NULL REFERENCES panics(panic_id),
        report TEXT NOT NULL,
        guard TEXT,
        reported_at TEXT NOT NULL,
        state TEXT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        last_error TEXT,
        updated_at TEXT NOT NULL,
        UNIQUE (panic_id, report)
      );
    `);
  },

  function v4_sites_of_codes_and_keys(db) {
    // Passes signed per site (issue #34): a code's site from the feed, and the site a pass key
    // signs for (null: the organization's, codes made before sites, valid at every site). The
    // cache kept so far does not know its codes' sites: the sync empties it and reads the feed
    // from the start once it knows which site this kiosk stands at (electron/core/site.ts).
    // Until then it decides as it did, so an upgrade while offline leaves the gate working.
    db.exec(`
      ALTER TABLE codes ADD COLUMN site_id TEXT;
      ALTER TABLE pass_keys ADD COLUMN site_id TEXT;
    `);
  },

  function v5_estate_names(db) {
    // The name of the estate a pass key signs for (issue #49): a refusal of another estate's
    // pass names it. Filled at the next sync of the pass keys; until then refusals say "another estate".
    db.exec(`ALTER TABLE pass_keys ADD COLUMN site_name TEXT;`);
  },

  function v6_identity(db) {
    // The kiosk's own identity (issue #49): its Ed25519 key pair, made once, and the certificate
    // its site's kiosk authority last gave it, with that authority's public key to check peers by.
    db.exec(`
      CREATE TABLE identity (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        public_key TEXT NOT NULL,
        private_key TEXT NOT NULL,
        certificate TEXT,
        expires_at TEXT,
        site_id TEXT,
        authority_kid TEXT,
        authority_public_key TEXT,
        updated_at TEXT NOT NULL
      );
    `);
  },

  function v7_peer_facts(db) {
    // What the gates of a site tell each other (issue #49; electron/core/peers/): every fact this
    // kiosk recorded or heard from a peer (a use of a pass, its settlement by the server, a visit
    // opened, its server log id, a check-out, an SOS), once each by its id. Grow-only: merging two
    // kiosks' facts is their union; retention drops old ones. `seq` orders what to pass on.
    db.exec(`
      CREATE TABLE peer_facts (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        fact_id TEXT NOT NULL UNIQUE,
        kind TEXT NOT NULL,
        -- the kiosk that recorded it (and the only one that replays it to the server)
        kiosk_id TEXT NOT NULL,
        -- the pass (code id) of a use or settlement, the visit of a visit, log id or check-out
        subject TEXT NOT NULL,
        at TEXT NOT NULL,
        body TEXT NOT NULL,
        received_at TEXT NOT NULL
      );
      CREATE INDEX peer_facts_subject ON peer_facts (kind, subject);
    `);
  },
];

export function kioskSchemaVersion(db: Database.Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/** Applies every migration after the database's version, each in one transaction. */
export function migrateKioskDatabase(db: Database.Database, migrations = KIOSK_MIGRATIONS): number {
  let version = kioskSchemaVersion(db);
  if (version > migrations.length) {
    throw new Error(`The kiosk database is at version ${version}, newer than this kiosk (${migrations.length}); update the kiosk`);
  }
  for (; version < migrations.length; version++) {
    const migration = migrations[version]!;
    db.transaction(() => {
      migration(db);
      db.pragma(`user_version = ${version + 1}`);
    }).immediate();
  }
  return version;
}
