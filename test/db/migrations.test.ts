import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { migrateToLatest, openDatabase, type OpenedDatabase } from '../../server/db/database.ts';
import { createPrivateKey, generateKeyPairSync, randomBytes } from 'node:crypto';
import { signPass, verifyPass } from '../../server/access-codes/pass-keys.ts';
import { newId } from '../../server/ids.ts';
import { serverMigrations, withoutSealingKey } from '../../server/db/migrations/index.ts';
import type { PassKeyRow } from '../../server/db/schema.ts';
import { createSecretBox, isSealed, sealingKey, type SecretBox } from '../../server/secrets/secret-box.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { insertEvents, insertEventsAtWebhookRevision, sequenceCommittedEvents } from '../../server/events/store.ts';
import { hasActiveAssignment, incidentsNeedingDispatch } from '../../server/dispatch/store.ts';
import { countCleared, insertStandDown, undecidedAlarms } from '../../server/messages/store.ts';
import type { Db } from '../../server/db/schema.ts';
import { openLinksOf } from '../../server/people/store.ts';
import { stageIn } from '../../server/people/session.ts';
import { LIST_INDEXES } from '../../server/db/migrations/0036-reads-at-scale.ts';
import { dutyResponders, openAlert } from '../../server/duty/store.ts';
import { dutyOf } from '../../server/duty/status.ts';
import { matchesText } from '../../server/db/text-search.ts';

/** PostgreSQL numbers committed events with a sequencer; SQLite numbered them as they were inserted. */
const sequenceEvents = async (db: Db, engine: 'sqlite' | 'postgres') => (engine === 'postgres' ? sequenceCommittedEvents(db) : 0);

const migrations = serverMigrations(withoutSealingKey);
/** The migration just before `name`. */
const before = (name: string) => Object.keys(migrations)[Object.keys(migrations).indexOf(name) - 1]!;
/** The migrations up to and including `name`, in order. */
const through = (name: string) => {
  const names = Object.keys(migrations);
  return Object.fromEntries(names.slice(0, names.indexOf(name) + 1).map((n) => [n, migrations[n]!]));
};

/** org_a and org_b, with 0001's columns, for a migration that works per organization. */
async function twoOrganizations(db: OpenedDatabase['db'], now: string): Promise<void> {
  for (const [id, prefix] of [['org_a', 'AB'], ['org_b', 'CD']] as const) {
    await db
      .insertInto('organizations')
      .values({ organization_id: id, name: id, plan: 'starter', subscription_status: 'active', code_prefix: prefix, rate_limit_per_minute: null, created_at: now, updated_at: now } as never)
      .execute();
  }
}

describe('migrations', () => {
  let opened: OpenedDatabase | undefined;
  let database: TestDatabase | undefined;
  afterEach(async () => {
    await opened?.close();
    await database?.drop();
    opened = undefined;
    database = undefined;
  });

  async function fresh() {
    database = await createTestDatabase();
    opened = openDatabase(database.url);
    return opened.db;
  }

  it('run in order on an empty database and record each one', async () => {
    const db = await fresh();
    expect(await migrateToLatest(db)).toEqual(Object.keys(migrations));
    const applied = await sql<{ name: string }>`select name from schema_migrations order by name`.execute(db);
    expect(applied.rows.map((row) => row.name)).toEqual(Object.keys(migrations));
  });

  it('running again changes nothing', async () => {
    const db = await fresh();
    await migrateToLatest(db);
    expect(await migrateToLatest(db)).toEqual([]);
  });

  it('several hosts migrating at once apply each migration once', async () => {
    const db = await fresh();
    const second = openDatabase(database!.url);
    try {
      const [a, b] = await Promise.all([migrateToLatest(db), migrateToLatest(second.db)]);
      expect([...a, ...b].sort()).toEqual(Object.keys(migrations));
    } finally {
      await second.close();
    }
  });

  it('0001-foundation makes the tables the API stores its data in, with the idempotency_key uniqueness', async () => {
    const db = await fresh();
    await migrateToLatest(db, { '0001-foundation': migrations['0001-foundation']! });
    const tables = (await db.introspection.getTables()).map((t) => t.name).sort();
    expect(tables).toEqual(
      expect.arrayContaining(['api_keys', 'events', 'idempotency_requests', 'incident_timeline', 'incidents', 'organizations']),
    );
    const now = '2026-11-22T10:00:00.000Z';
    await db
      .insertInto('organizations')
      .values({ organization_id: 'org_1', name: 'A', plan: 'starter', subscription_status: 'active', code_prefix: 'AB', rate_limit_per_minute: null, created_at: now, updated_at: now } as never) // 0001's columns only
      .execute();
    const incident = (id: string, key: string | null) => ({
      incident_id: id, organization_id: 'org_1', environment: 'live', idempotency_key: key, category: 'sos', severity: 'low',
      status: 'created', title: 't', description: null, is_drill: 0, subject_name: 'n', subject_phone: null, subject_email: null,
      subject_reference: null, subject_metadata: '{}', longitude: 3.1, latitude: 6.2, address: null, landmark: null, version: 1,
      dispatch_deadline: now, escalation_deadline: now, assigned_at: null, on_scene_at: null, resolution_outcome: null,
      resolution_notes: null, created_at: now, updated_at: now, resolved_at: null, cancelled_at: null,
    }) as never; // 0001's columns only
    await db.insertInto('incidents').values(incident('inc_1', 'same')).execute();
    await db.insertInto('incidents').values(incident('inc_2', null)).execute();
    await db.insertInto('incidents').values(incident('inc_3', null)).execute();
    await expect(db.insertInto('incidents').values(incident('inc_4', 'same')).execute()).rejects.toThrow();
    const stored = await db.selectFrom('incidents').select(['longitude', 'latitude']).where('incident_id', '=', 'inc_1').executeTakeFirstOrThrow();
    expect([Number(stored.longitude), Number(stored.latitude)]).toEqual([3.1, 6.2]);
  });

  it.each([
    ['0001-foundation', ['organizations', 'api_keys', 'incidents', 'incident_timeline', 'events', 'idempotency_requests']],
    ['0002-visitor-access', ['access_codes', 'access_logs', 'pass_keys', 'feed_counters']],
    ['0003-webhooks', ['webhook_endpoints', 'webhook_jobs', 'webhook_deliveries', 'server_keys']],
    ['0004-responders', ['responders']],
    ['0005-dispatch', ['dispatch_offers', 'verified_incidents']],
    ['0006-threat-events', ['threat_events']],
    ['0007-incidents-by-responder', []],
    ['0008-threat-revisions', ['threat_revision']],
    ['0009-sealed-pass-keys', []],
    ['0010-threat-data-releases', ['threat_data_files']],
    ['0014-auth-revision', ['auth_revision']],
    ['0015-webhook-revision', ['webhook_revision']],
    ['0021-kiosks', ['kiosks']],
    ['0022-roll-calls', ['roll_calls', 'roll_call_entries']],
    ['0023-two-step-policy', []],
    ['0024-memberships', ['memberships']],
    ['0025-key-makers', []],
    ['0026-sites', ['sites', 'entry_points']],
  ])('%s applies on top of the ones before it and adds its tables', async (name, tables) => {
    const db = await fresh();
    const names = Object.keys(migrations);
    const upTo = Object.fromEntries(names.slice(0, names.indexOf(name) + 1).map((n) => [n, migrations[n]!]));
    const before = Object.fromEntries(names.slice(0, names.indexOf(name)).map((n) => [n, migrations[n]!]));
    await migrateToLatest(db, before);
    const had = (await db.introspection.getTables()).map((t) => t.name);
    for (const table of tables) expect(had).not.toContain(table);
    expect(await migrateToLatest(db, upTo)).toEqual([name]);
    const has = (await db.introspection.getTables()).map((t) => t.name);
    expect(has).toEqual(expect.arrayContaining(tables));
  });

  it('0021-kiosks keys a kiosk by its tenant and its own id: the same id in another organization or environment is another row', async () => {
    const db = await fresh();
    const names = Object.keys(migrations);
    await migrateToLatest(db, Object.fromEntries(names.slice(0, names.indexOf('0021-kiosks') + 1).map((n) => [n, migrations[n]!])));
    const now = '2026-11-22T10:00:00.000Z';
    const kiosk = (organization_id: string, environment: string) => ({
      organization_id, environment, kiosk_id: 'kiosk_01JD7ZK3Q0C7W5N2Y8S4V6X9AB', name: null, entry_point: 'Gate A', app_version: '0.1.0',
      queued_operations: 0, oldest_queued_at: null, last_sync_at: null, needs_attention: 0, clock: now, clock_skew_ds: 0,
      last_seen_at: now, offline_since: null, first_seen_at: now, retired_at: null, updated_at: now,
    });
    await db.insertInto('kiosks').values([kiosk('org_a', 'live'), kiosk('org_b', 'live'), kiosk('org_a', 'sandbox')]).execute();
    await expect(db.insertInto('kiosks').values(kiosk('org_a', 'live')).execute()).rejects.toThrow();
  });

  it('0009-sealed-pass-keys seals plain pass-signing keys with the sealing key, leaves sealed ones alone, and passes still verify', async () => {
    const db = await fresh();
    const box = createSecretBox(sealingKey(randomBytes(32)));
    const withKey = serverMigrations({ secretBox: () => box });
    const names = Object.keys(withKey);
    await migrateToLatest(db, Object.fromEntries(names.slice(0, names.indexOf('0009-sealed-pass-keys')).map((n) => [n, withKey[n]!])));
    const now = '2026-11-22T10:00:00.000Z';
    for (const [id, prefix] of [['org_a', 'AB'], ['org_b', 'CD']] as const) {
      await db
        .insertInto('organizations')
        .values({ organization_id: id, name: id, plan: 'starter', subscription_status: 'active', code_prefix: prefix, rate_limit_per_minute: null, created_at: now, updated_at: now } as never)
        .execute();
    }
    const passKey = (kid: string, organizationId: string) => {
      const { publicKey, privateKey } = generateKeyPairSync('ed25519');
      return {
        kid,
        organization_id: organizationId,
        environment: 'live',
        public_key: publicKey.export({ format: 'der', type: 'spki' }).subarray(12).toString('base64url'),
        private_key: privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64'),
        created_at: now,
        retired_at: null,
        accept_until: null,
      } satisfies PassKeyRow;
    };
    const plain = passKey('KIDPLAIN', 'org_a');
    const sealedBefore = passKey('KIDSEALD', 'org_b');
    const alreadySealed = { ...sealedBefore, private_key: box.seal(sealedBefore.private_key) };
    // As stored before migration 0016 added retired_at and accept_until.
    const asBefore0016 = ({ retired_at: _r, accept_until: _a, ...row }: PassKeyRow) => row;
    await db.insertInto('pass_keys').values([asBefore0016(plain), asBefore0016(alreadySealed)] as PassKeyRow[]).execute();
    const claims = { code: 'AB-2345', codeId: newId('code', new Date(now)), validFrom: Date.parse(now), validUntil: Date.parse(now) + 86_400_000, maxUses: 1 };
    // A pass signed before the migration, with the key as it was stored then.
    const signedBefore = signPass({ seal: (text: string) => text, open: (text: string) => text } as SecretBox, plain, claims);

    const upTo0009 = Object.fromEntries(names.slice(0, names.indexOf('0009-sealed-pass-keys') + 1).map((n) => [n, withKey[n]!]));
    expect(await migrateToLatest(db, upTo0009)).toEqual(['0009-sealed-pass-keys']);
    const rows = await db.selectFrom('pass_keys').selectAll().orderBy('kid').execute();
    const after = Object.fromEntries(rows.map((row) => [row.kid, row]));
    // The column no longer holds a usable private key.
    expect(isSealed(after.KIDPLAIN!.private_key)).toBe(true);
    expect(after.KIDPLAIN!.private_key).not.toContain(plain.private_key);
    expect(() => createPrivateKey({ key: Buffer.from(after.KIDPLAIN!.private_key, 'base64'), format: 'der', type: 'pkcs8' })).toThrow();
    expect(box.open(after.KIDPLAIN!.private_key)).toBe(plain.private_key);
    // Sealed once, not twice.
    expect(after.KIDSEALD!.private_key).toBe(alreadySealed.private_key);
    // Passes signed before and after both verify against the same public key.
    expect(verifyPass(signedBefore, [after.KIDPLAIN!])).toEqual(claims);
    expect(verifyPass(signPass(box, after.KIDPLAIN!, claims), [after.KIDPLAIN!])).toEqual(claims);
    expect(verifyPass(signPass(box, after.KIDSEALD!, claims), [after.KIDSEALD!])).toEqual(claims);
    // Another key cannot open it.
    expect(() => signPass(createSecretBox(sealingKey(randomBytes(32))), after.KIDPLAIN!, claims)).toThrow();
  });

  it('0020-event-feed numbers events made before it in the order they were made, and each later one once it is committed', async () => {
    const db = await fresh();
    const names = Object.keys(migrations);
    const upTo0019 = Object.fromEntries(names.slice(0, names.indexOf('0020-event-feed')).map((n) => [n, migrations[n]!]));
    await migrateToLatest(db, upTo0019);
    const now = '2026-11-22T10:00:00.000Z';
    await db
      .insertInto('organizations')
      .values({ organization_id: 'org_1', name: 'A', plan: 'starter', subscription_status: 'active', code_prefix: 'AB', rate_limit_per_minute: null, created_at: now, updated_at: now } as never)
      .execute();
    const event = (id: string, at: string) => ({ event_id: id, organization_id: 'org_1', environment: 'live', type: 'incident.created', resource_id: 'inc_1', data: '{}', created_at: at });
    await db.insertInto('events').values([event('evt_c', '2026-11-22T10:00:03.000Z'), event('evt_a', '2026-11-22T10:00:01.000Z'), event('evt_b', '2026-11-22T10:00:02.000Z')]).execute();
    expect((await migrateToLatest(db))[0]).toBe('0020-event-feed');
    const numbered = async () => (await db.selectFrom('events').select(['event_id', 'feed_seq']).orderBy('event_id').execute()).map((row) => [row.event_id, row.feed_seq === null ? null : Number(row.feed_seq)]);
    expect(await numbered()).toEqual([['evt_a', 1], ['evt_b', 2], ['evt_c', 3]]);
    // A later event: numbered as it is inserted (SQLite), or by the sequencer once committed (PostgreSQL).
    await db.insertInto('events').values(event('evt_0', '2026-11-22T10:00:04.000Z')).execute();
    await sequenceEvents(db, opened!.engine);
    expect(await numbered()).toEqual([['evt_0', 4], ['evt_a', 1], ['evt_b', 2], ['evt_c', 3]]);
  });

  it('0024-memberships moves each person\'s organization and role to a membership and keeps their sessions and recovery codes', async () => {
    const db = await fresh();
    const names = Object.keys(migrations);
    await migrateToLatest(db, Object.fromEntries(names.slice(0, names.indexOf('0024-memberships')).map((n) => [n, migrations[n]!])));
    const now = '2026-11-22T10:00:00.000Z';
    await db
      .insertInto('organizations')
      .values({ organization_id: 'org_a', name: 'A', plan: 'starter', subscription_status: 'active', code_prefix: 'AB', rate_limit_per_minute: null, created_at: now, updated_at: now } as never)
      .execute();
    const person = (person_id: string, email: string, role: string) =>
      ({ person_id, organization_id: 'org_a', email, name: email, role, password_hash: 'h', totp_secret: null, totp_pending_secret: null, totp_enabled: 0, totp_last_step: null, created_at: now, updated_at: now, last_active_at: null }) as never; // 0023's columns
    await db.insertInto('people').values([person('per_owner', 'owner@a.test', 'owner'), person('per_viewer', 'viewer@a.test', 'viewer')]).execute();
    await db.insertInto('recovery_codes').values({ person_id: 'per_owner', code_hash: 'c1', used_at: null }).execute();
    await db
      .insertInto('console_sessions')
      .values({ session_id: 'ses_1', token_hash: 't1', person_id: 'per_owner', stage: 'active', ip: null, user_agent: null, created_at: now, last_active_at: now, expires_at: now, ended_at: null })
      .execute();

    expect(await migrateToLatest(db, Object.fromEntries(names.slice(0, names.indexOf('0024-memberships') + 1).map((n) => [n, migrations[n]!])))).toEqual(['0024-memberships']);

    const memberships = await db.selectFrom('memberships').select(['organization_id', 'person_id', 'role']).orderBy('person_id').execute();
    expect(memberships).toEqual([
      { organization_id: 'org_a', person_id: 'per_owner', role: 'owner' },
      { organization_id: 'org_a', person_id: 'per_viewer', role: 'viewer' },
    ]);
    const columns = (await db.introspection.getTables()).find((t) => t.name === 'people')!.columns.map((c) => c.name);
    expect(columns).not.toContain('organization_id');
    expect(columns).not.toContain('role');
    expect(await db.selectFrom('console_sessions').select('session_id').execute()).toEqual([{ session_id: 'ses_1' }]);
    expect(await db.selectFrom('recovery_codes').select('code_hash').execute()).toEqual([{ code_hash: 'c1' }]);
    // The foreign keys hold on the rebuilt tables, and a person has one membership for now.
    await expect(
      db.insertInto('console_sessions').values({ session_id: 'ses_2', token_hash: 't2', person_id: 'per_nobody', stage: 'active', ip: null, user_agent: null, created_at: now, last_active_at: now, expires_at: now, ended_at: null }).execute(),
    ).rejects.toThrow();
    await expect(db.insertInto('memberships').values({ organization_id: 'org_a', person_id: 'per_nobody', role: 'viewer', created_at: now, updated_at: now }).execute()).rejects.toThrow();
    await db
      .insertInto('organizations')
      .values({ organization_id: 'org_b', name: 'B', plan: 'starter', subscription_status: 'active', code_prefix: 'CD', rate_limit_per_minute: null, created_at: now, updated_at: now } as never)
      .execute();
    await expect(db.insertInto('memberships').values({ organization_id: 'org_b', person_id: 'per_viewer', role: 'viewer', created_at: now, updated_at: now }).execute()).rejects.toThrow();
  });

  it('0025-key-makers takes each key\'s maker from the audit log, with the person\'s role, and leaves older keys unknown', async () => {
    const db = await fresh();
    const names = Object.keys(migrations);
    await migrateToLatest(db, Object.fromEntries(names.slice(0, names.indexOf('0025-key-makers')).map((n) => [n, migrations[n]!])));
    const now = '2026-11-22T10:00:00.000Z';
    await db
      .insertInto('organizations')
      .values({ organization_id: 'org_a', name: 'A', plan: 'starter', subscription_status: 'active', code_prefix: 'AB', rate_limit_per_minute: null, created_at: now, updated_at: now } as never)
      .execute();
    await db
      .insertInto('people')
      .values({ person_id: 'per_dev', email: 'dev@a.test', name: 'Dev', password_hash: 'h', totp_secret: null, totp_pending_secret: null, totp_enabled: 0, totp_last_step: null, created_at: now, updated_at: now, last_active_at: null })
      .execute();
    await db.insertInto('memberships').values({ organization_id: 'org_a', person_id: 'per_dev', role: 'developer', created_at: now, updated_at: now }).execute();
    const key = (key_id: string) =>
      ({ key_id, organization_id: 'org_a', environment: 'live', name: key_id, scopes: '["admin"]', secret_hash: key_id, secret_hint: 'h', created_at: now, last_used_at: null, revoked_at: null, expires_at: null }) as never; // 0024's columns
    await db.insertInto('api_keys').values([key('key_by_dev'), key('key_by_key'), key('key_by_gone'), key('key_older')]).execute();
    const audit = (audit_id: string, actor_type: string, actor_id: string, actor_label: string, resource_id: string) => ({
      audit_id, organization_id: 'org_a', environment: 'live', actor_type, actor_id, actor_label, action: 'createApiKey', resource_type: 'api-keys', resource_id, ip: null, created_at: now,
    });
    await db
      .insertInto('audit_log')
      .values([audit('aud_1', 'person', 'per_dev', 'Dev', 'key_by_dev'), audit('aud_2', 'key', 'key_by_dev', 'key_by_dev', 'key_by_key'), audit('aud_3', 'person', 'per_gone', 'Gone', 'key_by_gone')])
      .execute();

    await migrateToLatest(db, Object.fromEntries(names.slice(0, names.indexOf('0025-key-makers') + 1).map((n) => [n, migrations[n]!])));
    const keys = await db.selectFrom('api_keys').select(['key_id', 'created_by', 'created_by_label', 'created_by_role', 'reviewed_at']).orderBy('key_id').execute();
    expect(keys).toEqual([
      { key_id: 'key_by_dev', created_by: 'per_dev', created_by_label: 'Dev', created_by_role: 'developer', reviewed_at: null },
      { key_id: 'key_by_gone', created_by: 'per_gone', created_by_label: 'Gone', created_by_role: null, reviewed_at: null },
      { key_id: 'key_by_key', created_by: 'key_by_dev', created_by_label: 'key_by_dev', created_by_role: null, reviewed_at: null },
      { key_id: 'key_older', created_by: null, created_by_label: null, created_by_role: null, reviewed_at: null },
    ]);
  });

  it('0026-sites gives every organization a default site named after it, holding the gates its codes and kiosks name', async () => {
    const db = await fresh();
    const names = Object.keys(migrations);
    await migrateToLatest(db, Object.fromEntries(names.slice(0, names.indexOf('0026-sites')).map((n) => [n, migrations[n]!])));
    const now = '2026-11-22T10:00:00.000Z';
    for (const [id, name, prefix] of [['org_a', 'Admiralty Estate', 'AB'], ['org_b', 'Banana Island', 'CD']] as const) {
      await db
        .insertInto('organizations')
        .values({ organization_id: id, name, plan: 'starter', subscription_status: 'active', code_prefix: prefix, rate_limit_per_minute: null, created_at: now, updated_at: now } as never)
        .execute();
    }
    const code = (code_id: string, environment: string, entry_point: string | null) =>
      ({
        code_id, organization_id: 'org_a', environment, code: code_id, visitor_name: 'v', visitor_phone: null, visitor_email: null, purpose: null, entry_point,
        host_user_id: null, status: 'active', valid_from: now, valid_until: now, max_uses: 1, use_count: 0, qr_payload: 'q', change_seq: 1, created_at: now,
        updated_at: now, revoked_at: null, revoke_reason: null, erased_at: null,
      }) as never; // 0025's columns
    await db.insertInto('access_codes').values([code('code_1', 'live', 'North gate'), code('code_2', 'sandbox', ' South gate '), code('code_3', 'live', null)]).execute();
    await db
      .insertInto('kiosks')
      .values({
        organization_id: 'org_a', environment: 'live', kiosk_id: 'kiosk_01JD7ZK3Q0C7W5N2Y8S4V6X9AB', name: null, entry_point: 'North gate', app_version: '0.1.0',
        queued_operations: 0, oldest_queued_at: null, last_sync_at: null, needs_attention: 0, clock: now, clock_skew_ds: 0,
        last_seen_at: now, offline_since: null, first_seen_at: now, retired_at: null, updated_at: now,
      })
      .execute();

    expect(await migrateToLatest(db, Object.fromEntries(names.slice(0, names.indexOf('0026-sites') + 1).map((n) => [n, migrations[n]!])))).toEqual(['0026-sites']);
    const sites = await db.selectFrom('sites').select(['site_id', 'organization_id', 'name', 'is_default', 'time_zone', 'call_list']).orderBy('organization_id').execute();
    expect(sites.map(({ site_id: _id, ...site }) => site)).toEqual([
      { organization_id: 'org_a', name: 'Admiralty Estate', is_default: 1, time_zone: 'Africa/Lagos', call_list: '[]' },
      { organization_id: 'org_b', name: 'Banana Island', is_default: 1, time_zone: 'Africa/Lagos', call_list: '[]' },
    ]);
    const gates = await db.selectFrom('entry_points').select(['site_id', 'name']).orderBy('name').execute();
    expect(gates).toEqual([
      { site_id: sites[0]!.site_id, name: 'North gate' },
      { site_id: sites[0]!.site_id, name: 'South gate' },
    ]);
  });

  it('0027-site-naming puts earlier visits at their organization\'s default site, and leaves earlier codes valid at every site and earlier incidents at none', async () => {
    const db = await fresh();
    await migrateToLatest(db, through('0025-key-makers'));
    const now = '2026-11-22T10:00:00.000Z';
    await twoOrganizations(db, now);
    await migrateToLatest(db, through('0026-sites'));
    const log = (log_id: string, organization_id: string) =>
      ({
        log_id, organization_id, environment: 'live', code_id: null, method: 'walk_in', visitor_name: 'v', visitor_phone: null, entry_point: 'North gate',
        host_user_id: null, notes: null, status: 'checked_in', checked_in_at: now, checked_out_at: null, checkout_notes: null, recorded_by: null,
        auto_checked_out: 0, created_at: now, updated_at: now, erased_at: null,
      }) as never; // 0026's columns
    await db.insertInto('access_logs').values([log('log_a', 'org_a'), log('log_b', 'org_b')]).execute();
    await db
      .insertInto('access_codes')
      .values({
        code_id: 'code_1', organization_id: 'org_a', environment: 'live', code: 'AB-2345', visitor_name: 'v', visitor_phone: null, visitor_email: null, purpose: null,
        entry_point: null, host_user_id: null, status: 'active', valid_from: now, valid_until: now, max_uses: 1, use_count: 0, qr_payload: 'q', change_seq: 1,
        created_at: now, updated_at: now, revoked_at: null, revoke_reason: null, erased_at: null,
      } as never)
      .execute();
    await db
      .insertInto('incidents')
      .values({
        incident_id: 'inc_1', organization_id: 'org_a', environment: 'live', idempotency_key: null, category: 'sos', severity: 'low', status: 'created', title: 't',
        description: null, is_drill: 0, subject_name: 'n', subject_phone: null, subject_email: null, subject_reference: null, subject_metadata: '{}', longitude: 3.1,
        latitude: 6.2, address: null, landmark: null, version: 1, dispatch_deadline: now, escalation_deadline: now, assigned_at: null, on_scene_at: null,
        resolution_outcome: null, resolution_notes: null, created_at: now, updated_at: now, resolved_at: null, cancelled_at: null,
      } as never)
      .execute();

    expect(await migrateToLatest(db, through('0027-site-naming'))).toEqual(['0027-site-naming']);
    const defaults = new Map((await db.selectFrom('sites').select(['organization_id', 'site_id']).where('is_default', '=', 1).execute()).map((row) => [row.organization_id, row.site_id]));
    const logs = await db.selectFrom('access_logs').select(['log_id', 'site_id']).orderBy('log_id').execute();
    expect(logs).toEqual([
      { log_id: 'log_a', site_id: defaults.get('org_a') },
      { log_id: 'log_b', site_id: defaults.get('org_b') },
    ]);
    expect(await db.selectFrom('access_codes').select(['site_id', 'entry_point_id']).execute()).toEqual([{ site_id: null, entry_point_id: null }]);
    expect(await db.selectFrom('incidents').select('site_id').execute()).toEqual([{ site_id: null }]);
  });

  it('0029-kiosk-sites puts every kiosk from before sites at its organization\'s default site', async () => {
    const db = await fresh();
    await migrateToLatest(db, through('0025-key-makers'));
    const now = '2026-11-22T10:00:00.000Z';
    await twoOrganizations(db, now);
    await migrateToLatest(db, through('0028-text-messages'));
    const kiosk = (organization_id: string) =>
      ({
        organization_id, environment: 'live', kiosk_id: 'kiosk_01JD7ZK3Q0C7W5N2Y8S4V6X9AB', name: null, entry_point: 'Gate A', app_version: '0.1.0',
        queued_operations: 0, oldest_queued_at: null, last_sync_at: null, needs_attention: 0, clock: now, clock_skew_ds: 0,
        last_seen_at: now, offline_since: null, first_seen_at: now, retired_at: null, updated_at: now,
      }) as never; // 0028's columns
    await db.insertInto('kiosks').values([kiosk('org_a'), kiosk('org_b')]).execute();
    expect(await migrateToLatest(db, through('0029-kiosk-sites'))).toEqual(['0029-kiosk-sites']);
    const defaults = new Map((await db.selectFrom('sites').select(['organization_id', 'site_id']).where('is_default', '=', 1).execute()).map((row) => [row.organization_id, row.site_id]));
    const kiosks = await db.selectFrom('kiosks').select(['organization_id', 'site_id']).orderBy('organization_id').execute();
    expect(kiosks).toEqual([
      { organization_id: 'org_a', site_id: defaults.get('org_a') },
      { organization_id: 'org_b', site_id: defaults.get('org_b') },
    ]);
  });

  it("0032-site-limits leaves every endpoint reaching every site, puts each earlier event at its data's site, and an endpoint's sites move the webhook revision", async () => {
    const db = await fresh();
    await migrateToLatest(db, through('0025-key-makers'));
    const now = '2026-11-22T10:00:00.000Z';
    await twoOrganizations(db, now);
    await migrateToLatest(db, through('0031-roll-call-sites'));
    const event = (event_id: string, data: string) => ({ event_id, organization_id: 'org_a', environment: 'live', type: 'incident.created', resource_id: 'inc_1', data, created_at: now });
    await db
      .insertInto('events')
      .values([event('evt_at_site', '{"incident_id":"inc_1","site_id":"site_a"}'), event('evt_nowhere', '{"incident_id":"inc_2","site_id":null}'), event('evt_old', '{"incident_id":"inc_3"}')])
      .execute();
    await db
      .insertInto('webhook_endpoints')
      .values({
        endpoint_id: 'whe_1', organization_id: 'org_a', environment: 'live', url: 'https://hooks.example.com', description: null, events: '["*"]', status: 'enabled', secret: 's',
        previous_secret: null, previous_secret_expires_at: null, secret_rotated_at: null, secret_rotation_due: 0, created_at: now, updated_at: now, deleted_at: null,
      } as never) // 0031's columns
      .execute();
    expect(await migrateToLatest(db, through('0032-site-limits'))).toEqual(['0032-site-limits']);
    const sites = await db.selectFrom('events').select(['event_id', 'site_id']).orderBy('event_id').execute();
    expect(sites).toEqual([
      { event_id: 'evt_at_site', site_id: 'site_a' },
      { event_id: 'evt_nowhere', site_id: null },
      { event_id: 'evt_old', site_id: null },
    ]);
    expect((await db.selectFrom('webhook_endpoints').select('site_ids').executeTakeFirstOrThrow()).site_ids).toBeNull();
    const revision = async () => Number((await db.selectFrom('webhook_revision').select('revision').executeTakeFirstOrThrow()).revision);
    const before = await revision();
    await db.updateTable('webhook_endpoints').set({ site_ids: '["site_a"]' }).where('endpoint_id', '=', 'whe_1').execute();
    expect(await revision()).not.toBe(before);
  });

  it('0034-several-organizations lets a person with a membership join a second organization, still once per organization', async () => {
    const db = await fresh();
    await migrateToLatest(db, through('0025-key-makers'));
    const now = '2026-11-22T10:00:00.000Z';
    await twoOrganizations(db, now);
    await db
      .insertInto('people')
      .values({ person_id: 'per_1', email: 'control@a.test', name: null, password_hash: 'h', totp_secret: null, totp_pending_secret: null, totp_enabled: 0, totp_last_step: null, created_at: now, updated_at: now, last_active_at: null })
      .execute();
    await db.insertInto('memberships').values({ organization_id: 'org_a', person_id: 'per_1', role: 'operator', created_at: now, updated_at: now } as never).execute();
    await migrateToLatest(db, through('0033-site-pass-keys'));
    await expect(db.insertInto('memberships').values({ organization_id: 'org_b', person_id: 'per_1', role: 'admin', created_at: now, updated_at: now }).execute()).rejects.toThrow();
    expect(await migrateToLatest(db, through('0034-several-organizations'))).toEqual(['0034-several-organizations']);
    await db.insertInto('memberships').values({ organization_id: 'org_b', person_id: 'per_1', role: 'admin', created_at: now, updated_at: now }).execute();
    await expect(db.insertInto('memberships').values({ organization_id: 'org_b', person_id: 'per_1', role: 'viewer', created_at: now, updated_at: now }).execute()).rejects.toThrow();
    expect(await db.selectFrom('memberships').select(['organization_id', 'role']).where('person_id', '=', 'per_1').orderBy('organization_id').execute()).toEqual([
      { organization_id: 'org_a', role: 'operator' },
      { organization_id: 'org_b', role: 'admin' },
    ]);
  });

  it('0035-leaner-sos-writes numbers later events after those made before it, by every insert path, and still finds busy responders and due steps', async () => {
    const db = await fresh();
    await migrateToLatest(db, through('0025-key-makers'));
    const now = '2026-11-22T10:00:00.000Z';
    await twoOrganizations(db, now);
    await migrateToLatest(db, through('0034-several-organizations'));
    const event = (id: string, second: number) => ({
      event_id: id, organization_id: 'org_a', environment: 'live', type: 'incident.created', resource_id: 'inc_1', data: '{}', created_at: `2026-11-22T10:00:0${second}.000Z`, site_id: null,
    });
    await db.insertInto('events').values([event('evt_1', 1), event('evt_2', 2)]).execute();
    const incident = (id: string, columns: object) => ({
      incident_id: id, organization_id: 'org_a', environment: 'live', idempotency_key: null, category: 'sos', severity: 'critical', status: 'dispatching', title: 'SOS',
      description: null, is_drill: 0, subject_name: 'Ada', subject_phone: null, subject_email: null, subject_reference: null, subject_metadata: '{}', longitude: 3.4, latitude: 6.5,
      address: null, landmark: null, version: 1, dispatch_deadline: '2026-11-22T11:00:00.000Z', escalation_deadline: '2026-11-22T11:00:00.000Z', assigned_at: null, on_scene_at: null,
      resolution_outcome: null, resolution_notes: null, created_at: now, updated_at: now, resolved_at: null, cancelled_at: null, responder_id: null, responder_name: null,
      responder_phone: null, responder_latitude: null, responder_longitude: null, eta_minutes: null, next_step_at: null, dispatch_round: 1, site_id: null, ...columns,
    });
    await db
      .insertInto('incidents')
      .values([incident('inc_new', {}), incident('inc_busy', { status: 'on_scene', responder_id: 'rsp_1' }), incident('inc_due', { next_step_at: '2026-11-22T10:00:05.000Z' })] as never)
      .execute();
    await sequenceEvents(db, opened!.engine);

    expect(await migrateToLatest(db, through('0035-leaner-sos-writes'))).toEqual(['0035-leaner-sos-writes']);
    const revision = Number((await db.selectFrom('webhook_revision').select('revision').executeTakeFirstOrThrow()).revision);
    await insertEventsAtWebhookRevision(db, [event('evt_3', 3), event('evt_4', 4)], revision);
    await insertEvents(db, [event('evt_5', 5)]);
    await db.insertInto('events').values(event('evt_6', 6)).execute();
    await sequenceEvents(db, opened!.engine);
    const numbered = (await db.selectFrom('events').select(['event_id', 'feed_seq']).orderBy('event_id').execute()).map((row) => [row.event_id, Number(row.feed_seq)]);
    expect(numbered).toEqual([1, 2, 3, 4, 5, 6].map((n) => [`evt_${n}`, n]));
    if (opened!.engine === 'sqlite') expect(Number((await db.selectFrom('event_feed').select('seq').executeTakeFirstOrThrow()).seq)).toBe(6);

    expect(await hasActiveAssignment(db, 'rsp_1')).toBe(true);
    expect(await hasActiveAssignment(db, 'rsp_2')).toBe(false);
    const due = await incidentsNeedingDispatch(db, '2026-11-22T10:00:10.000Z', '2026-11-22T09:00:00.000Z', 10);
    expect(due.map((row) => row.incident_id)).toEqual(['inc_due']);
  });
  it('0036-reads-at-scale leaves every earlier row to be tallied, builds every list index, and its text search finds earlier rows until they are erased', async () => {
    const db = await fresh();
    await migrateToLatest(db, through(before('0036-reads-at-scale')));
    const now = '2026-11-22T10:00:00.000Z';
    await twoOrganizations(db, now);
    const visit = (log_id: string, visitor_name: string) => ({
      log_id, organization_id: 'org_a', environment: 'live', code_id: null, method: 'walk_in', visitor_name, visitor_phone: '+2348031112222', entry_point: 'Main Gate',
      host_user_id: null, notes: null, status: 'checked_out', checked_in_at: now, checked_out_at: now, checkout_notes: null, recorded_by: null, auto_checked_out: 0,
      created_at: now, updated_at: now, erased_at: null, site_id: null,
    });
    await db.insertInto('access_logs').values([visit('log_1', 'Chiamaka Obi'), visit('log_2', 'Musa Bello')]).execute();

    expect(await migrateToLatest(db, through('0036-reads-at-scale'))).toEqual(['0036-reads-at-scale']);
    expect(await db.selectFrom('access_logs').select(['log_id', 'tallied']).orderBy('log_id').execute()).toEqual([
      { log_id: 'log_1', tallied: 0 },
      { log_id: 'log_2', tallied: 0 },
    ]);
    const indexes =
      opened!.engine === 'postgres'
        ? (await sql<{ name: string }>`select c.relname as name from pg_class c join pg_index i on i.indexrelid = c.oid where i.indisvalid`.execute(db)).rows
        : (await sql<{ name: string }>`select name from sqlite_master where type in ('index', 'table')`.execute(db)).rows;
    const names = new Set(indexes.map((row) => row.name));
    // Every list index (SQLite's text indexes are FTS5 tables of their own).
    for (const index of LIST_INDEXES) expect(names.has(opened!.engine === 'sqlite' && index.gin ? index.name.replace(/_text$/, '_fts') : index.name), index.name).toBe(true);
    const found = async (text: string) =>
      (await db.selectFrom('access_logs').select('log_id').where(matchesText(db, { columns: ['visitor_name', 'visitor_phone'], fts: 'access_logs_fts' }, text)).execute()).map((row) => row.log_id);
    expect(await found('AMAKA')).toEqual(['log_1']);
    expect(await found('1112222')).toEqual(['log_1', 'log_2']);
    await db.updateTable('access_logs').set({ visitor_name: null, visitor_phone: null }).where('log_id', '=', 'log_1').execute();
    expect(await found('amaka')).toEqual([]);
    expect(await found('1112222')).toEqual(['log_2']);
  });

  it('0041-second-step-and-open-links leaves every earlier session without a second step, asked for one where a role needs it, and finds open links by person, maker and email', async () => {
    const db = await fresh();
    await migrateToLatest(db, through(before('0041-second-step-and-open-links')));
    const now = '2026-11-22T10:00:00.000Z';
    await twoOrganizations(db, now);
    const person = (person_id: string, email: string, totp_enabled: number) => ({
      person_id, email, name: null, password_hash: 'h', totp_secret: null, totp_pending_secret: null, totp_enabled, totp_last_step: null, created_at: now, updated_at: now, last_active_at: null,
    });
    await db.insertInto('people').values([person('per_owner', 'owner@a.test', 1), person('per_viewer', 'viewer@a.test', 0)]).execute();
    await db
      .insertInto('memberships')
      .values([
        { organization_id: 'org_a', person_id: 'per_owner', role: 'owner', site_ids: null, created_at: now, updated_at: now },
        { organization_id: 'org_a', person_id: 'per_viewer', role: 'viewer', site_ids: null, created_at: now, updated_at: now },
      ])
      .execute();
    const session = (session_id: string, person_id: string) => ({ session_id, token_hash: session_id, person_id, stage: 'active', ip: null, user_agent: null, created_at: now, last_active_at: now, expires_at: '2026-11-29T10:00:00.000Z', ended_at: null });
    await db.insertInto('console_sessions').values([session('ses_owner', 'per_owner'), session('ses_viewer', 'per_viewer')] as never).execute();
    const link = (invitation_id: string, columns: object) => ({
      invitation_id, organization_id: 'org_a', email: 'viewer@a.test', name: null, role: 'viewer', kind: 'reset', person_id: 'per_viewer', token_hash: invitation_id, invited_by: 'per_owner',
      created_at: now, expires_at: '2026-11-29T10:00:00.000Z', used_at: null, revoked_at: null, site_ids: null, ...columns,
    });
    await db
      .insertInto('invitations')
      .values([link('inv_open', {}), link('inv_used', { used_at: now }), link('inv_join', { kind: 'join', person_id: null, email: 'new@a.test', role: 'admin' }), link('inv_other', { email: 'other@a.test', person_id: null, kind: 'join', invited_by: 'operator' })])
      .execute();

    expect(await migrateToLatest(db, through('0041-second-step-and-open-links'))).toEqual(['0041-second-step-and-open-links']);
    const sessions = await db.selectFrom('console_sessions').select(['session_id', 'stage', 'second_step_at']).orderBy('session_id').execute();
    expect(sessions).toEqual([
      { session_id: 'ses_owner', stage: 'active', second_step_at: null },
      { session_id: 'ses_viewer', stage: 'active', second_step_at: null },
    ]);
    // The owner's session gives a code once before it acts again; the viewer's goes on where viewers may skip it.
    expect(stageIn(sessions[0]!, { role: 'owner', totp_enabled: 1 }, { two_step_roles: null })).toBe('totp');
    expect(stageIn(sessions[1]!, { role: 'viewer', totp_enabled: 0 }, { two_step_roles: null })).toBe('active');
    expect(stageIn(sessions[1]!, { role: 'viewer', totp_enabled: 0 }, { two_step_roles: '["viewer"]' })).toBe('enrol_totp');
    const ids = async (of: { personId: string; email: string }) => (await openLinksOf(db, of, now)).map((row) => row.invitation_id).sort();
    expect(await ids({ personId: 'per_viewer', email: 'viewer@a.test' })).toEqual(['inv_open']);
    expect(await ids({ personId: 'per_owner', email: 'owner@a.test' })).toEqual(['inv_join', 'inv_open']);
    expect(await ids({ personId: 'per_nobody', email: 'other@a.test' })).toEqual(['inv_other']);
  });

  it('0042-site-bound-replays keeps earlier idempotency records as made for every site, and a kiosk skew of decades fits on both engines', async () => {
    const db = await fresh();
    await migrateToLatest(db, through('0025-key-makers'));
    const now = '2026-11-22T10:00:00.000Z';
    await twoOrganizations(db, now);
    await migrateToLatest(db, through(before('0042-site-bound-replays')));
    await db
      .insertInto('idempotency_requests')
      .values({ organization_id: 'org_a', environment: 'live', idempotency_key: 'k-before', fingerprint: 'f', state: 'complete', response_status: 201, response_body: 'sealed', locked_at: now, created_at: now })
      .execute();
    const kiosk = (kiosk_id: string, clock_skew_ds: number) => ({
      organization_id: 'org_a', environment: 'live', kiosk_id, name: null, entry_point: 'Gate A', app_version: '0.1.0', queued_operations: 0, oldest_queued_at: null,
      last_sync_at: null, needs_attention: 0, clock: now, clock_skew_ds, last_seen_at: now, offline_since: null, first_seen_at: now, retired_at: null, updated_at: now, site_id: null,
    });
    await db.insertInto('kiosks').values(kiosk('kiosk_before', -125)).execute();
    expect(await migrateToLatest(db, through('0042-site-bound-replays'))).toEqual(['0042-site-bound-replays']);
    expect(await db.selectFrom('idempotency_requests').select(['idempotency_key', 'site_ids']).execute()).toEqual([{ idempotency_key: 'k-before', site_ids: null }]);
    // 1970 against 2026, and 9999: tenths of a second past what a 32-bit integer holds.
    const decades = [-17_953_416_000, 2_517_807_743_999];
    await db.insertInto('kiosks').values([kiosk('kiosk_1970', decades[0]!), kiosk('kiosk_9999', decades[1]!)]).execute();
    const skews = await db.selectFrom('kiosks').select(['kiosk_id', 'clock_skew_ds']).orderBy('kiosk_id').execute();
    expect(skews.map((row) => [row.kiosk_id, Number(row.clock_skew_ds)])).toEqual([
      ['kiosk_1970', decades[0]],
      ['kiosk_9999', decades[1]],
      ['kiosk_before', -125],
    ]);
  });


  it('0043-text-ceilings clears every text queued before it, so it goes (or went) as before and counts toward its hour', async () => {
    const db = await fresh();
    await migrateToLatest(db, through(before('0043-text-ceilings')));
    const text = (message_id: string, status: string, created_at: string) => ({
      message_id, organization_id: 'org_a', environment: 'live', incident_id: `inc_${message_id}`, site_id: 'site_a', reason: 'escalated', recipient_name: 'Estate control',
      phone: '+2348031234567', body: 'TSARO: NO RESPONDER has accepted SOS', status, attempts: 1, next_attempt_at: created_at, locked_until: null,
      last_error: null, dlr_token_sealed: 'sealed', created_at, updated_at: created_at, sent_at: null, delivered_at: null, failed_at: null, log_id: null,
    });
    await db
      .insertInto('text_messages')
      .values([text('sms_sent', 'delivered', '2026-11-22T10:00:00.000Z'), text('sms_retrying', 'queued', '2026-11-22T10:10:00.000Z')] as never) // 0042's columns
      .execute();
    expect(await migrateToLatest(db, through('0043-text-ceilings'))).toEqual(['0043-text-ceilings']);
    const rows = await db.selectFrom('text_messages').select(['message_id', 'status', 'cleared_at', 'merged_into']).orderBy('message_id').execute();
    expect(rows).toEqual([
      { message_id: 'sms_retrying', status: 'queued', cleared_at: '2026-11-22T10:10:00.000Z', merged_into: null },
      { message_id: 'sms_sent', status: 'delivered', cleared_at: '2026-11-22T10:00:00.000Z', merged_into: null },
    ]);
    const tenant = { organizationId: 'org_a', environment: 'live' };
    expect(await countCleared(db, tenant, { phone: '+2348031234567', alarmsOnly: true }, '2026-11-22T09:30:00.000Z')).toBe(2);
    // A retry was decided already: the ceilings never hold it back or merge it.
    expect(await undecidedAlarms(db, tenant, '+2348031234567', 'site_a')).toEqual([]);
  });

  it('0044-names-people-choose keeps every gate unretired with no former names, and holds an organization to one default site', async () => {
    const db = await fresh();
    const now = '2026-11-22T10:00:00.000Z';
    await migrateToLatest(db, through(before('0026-sites')));
    await twoOrganizations(db, now);
    await migrateToLatest(db, through(before('0044-names-people-choose')));
    const defaultOf = async (organizationId: string) =>
      (await db.selectFrom('sites').select('site_id').where('organization_id', '=', organizationId).where('is_default', '=', 1).executeTakeFirstOrThrow()).site_id;
    const siteA = await defaultOf('org_a');
    await db.insertInto('entry_points').values({ entry_point_id: 'ent_main', site_id: siteA, organization_id: 'org_a', name: 'Main gate', created_at: now } as never).execute();
    await db
      .insertInto('sites')
      .values({ site_id: 'site_a2', organization_id: 'org_a', name: 'Phase 2', address: null, latitude: null, longitude: null, time_zone: 'Africa/Lagos', call_list: '[]', is_default: 0, archived_at: null, created_at: now, updated_at: now })
      .execute();
    expect(await migrateToLatest(db, through('0044-names-people-choose'))).toEqual(['0044-names-people-choose']);
    expect(await db.selectFrom('entry_points').select(['entry_point_id', 'name', 'retired_at']).execute()).toEqual([{ entry_point_id: 'ent_main', name: 'Main gate', retired_at: null }]);
    expect(await db.selectFrom('entry_point_names').selectAll().execute()).toEqual([]);
    // A second default for org_a is refused by the index; org_b keeps its own.
    await expect(db.updateTable('sites').set({ is_default: 1 }).where('site_id', '=', 'site_a2').execute()).rejects.toThrow();
    await db.updateTable('sites').set({ is_default: 0 }).where('site_id', '=', siteA).execute();
    await db.updateTable('sites').set({ is_default: 1 }).where('site_id', '=', 'site_a2').execute();
    expect(await defaultOf('org_a')).toBe('site_a2');
    expect(await defaultOf('org_b')).toEqual(expect.stringMatching(/^site_/));
    // A former name is unique within its site, as a current one is.
    const former = { entry_point_id: 'ent_main', site_id: siteA, organization_id: 'org_a', name: 'Gate A', created_at: now };
    await db.insertInto('entry_point_names').values(former).execute();
    await expect(db.insertInto('entry_point_names').values(former).execute()).rejects.toThrow();
  });
  it('0047-staff keeps staff apart: one account per email, sessions of their own, and an empty service audit log', async () => {
    const db = await fresh();
    const now = '2026-11-22T10:00:00.000Z';
    expect(await migrateToLatest(db, through('0047-staff'))).toContain('0047-staff');
    const member = { staff_id: 'stf_1', email: 'kemi@tsaro.example', name: 'Kemi', role: 'controller', password_hash: null, totp_secret: null, totp_pending_secret: null, totp_enabled: 0, totp_last_step: null, created_at: now, updated_at: now, last_active_at: null };
    await db.insertInto('staff').values(member).execute();
    await expect(db.insertInto('staff').values({ ...member, staff_id: 'stf_2' }).execute()).rejects.toThrow();
    // A TOTP step of a 30-second epoch fits (bigint on PostgreSQL).
    await db.updateTable('staff').set({ totp_last_step: 59_000_000 }).where('staff_id', '=', 'stf_1').execute();
    expect(await db.selectFrom('service_audit_log').selectAll().execute()).toEqual([]);
    expect(await db.selectFrom('staff_sessions').selectAll().execute()).toEqual([]);
  });

  it('0048-responder-roster makes every responder from before verified (a deactivated one retired) with an empty profile', async () => {
    const db = await fresh();
    const now = '2026-11-22T10:00:00.000Z';
    await migrateToLatest(db, through(before('0048-responder-roster')));
    const responder = (id: string, status: string) => ({ responder_id: id, environment: 'live', name: id, phone: '+2348030000000', token_hash: `h_${id}`, token_hint: 'rtk_…0000', status, available: 1, latitude: 6.5, longitude: 3.4, location_at: now, created_at: now, updated_at: now });
    await db.insertInto('responders').values([responder('rsp_on', 'active'), responder('rsp_off', 'deactivated')] as never).execute();
    expect(await migrateToLatest(db, through('0048-responder-roster'))).toEqual(['0048-responder-roster']);
    const rows = await db.selectFrom('responders').select(['responder_id', 'standing', 'skills', 'licence_expires']).orderBy('responder_id').execute();
    expect(rows).toEqual([
      { responder_id: 'rsp_off', standing: 'retired', skills: '[]', licence_expires: null },
      { responder_id: 'rsp_on', standing: 'verified', skills: '[]', licence_expires: null },
    ]);
  });

  it('0049-manual-dispatch adds the owning controller to incidents, and who made an offer and why it was declined', async () => {
    const db = await fresh();
    await migrateToLatest(db, through('0049-manual-dispatch'));
    const incident = await db.selectFrom('incidents').select(['controller_id', 'controller_name', 'controller_taken_at']).executeTakeFirst();
    expect(incident).toBeUndefined();
    const offer = await db.selectFrom('dispatch_offers').select(['offered_by', 'decline_reason']).executeTakeFirst();
    expect(offer).toBeUndefined();
  });

  it('0062-offer-stand-downs adds to each offer who stood its responder down, why and when (none before it)', async () => {
    const db = await fresh();
    await migrateToLatest(db, through(before('0062-offer-stand-downs')));
    await expect(db.selectFrom('dispatch_offers').select('stood_down_by').execute()).rejects.toThrow();
    expect(await migrateToLatest(db, through('0062-offer-stand-downs'))).toEqual(['0062-offer-stand-downs']);
    // Nullable text: every offer from before reads as never stood down.
    expect(await db.selectFrom('dispatch_offers').select(['stood_down_by', 'stood_down_reason', 'stood_down_at']).execute()).toEqual([]);
  });

  it('0059-kiosk-identities keeps every kiosk as it was, uncertified, and allows one kiosk authority per site and environment', async () => {
    const db = await fresh();
    const now = '2026-11-29T11:00:00.000Z';
    await migrateToLatest(db, through(before('0059-kiosk-identities')));
    const kiosk = {
      organization_id: 'org_a', environment: 'live', kiosk_id: 'kiosk_01JD7ZK3Q0C7W5N2Y8S4V6X9AB', name: null, entry_point: 'Main gate', app_version: '0.1.0', queued_operations: 0,
      oldest_queued_at: null, last_sync_at: null, needs_attention: 0, clock: now, clock_skew_ds: 0, last_seen_at: now, offline_since: null, first_seen_at: now, retired_at: null, updated_at: now, site_id: 'site_a',
    };
    await db.insertInto('kiosks').values(kiosk).execute();
    expect(await migrateToLatest(db, through('0059-kiosk-identities'))).toEqual(['0059-kiosk-identities']);
    expect(await db.selectFrom('kiosks').select(['kiosk_id', 'site_id', 'public_key', 'certificate_expires_at']).execute()).toEqual([
      { kiosk_id: kiosk.kiosk_id, site_id: 'site_a', public_key: null, certificate_expires_at: null },
    ]);
    const authority = { kid: 'ka_1', organization_id: 'org_a', environment: 'live', site_id: 'site_a', public_key: 'p', private_key: 'v2.sealed', created_at: now };
    await db.insertInto('kiosk_authorities').values(authority).execute();
    await expect(db.insertInto('kiosk_authorities').values({ ...authority, kid: 'ka_2' }).execute()).rejects.toThrow();
    await db.insertInto('kiosk_authorities').values({ ...authority, kid: 'ka_3', environment: 'sandbox' }).execute();
    expect(await db.selectFrom('kiosk_authorities').select('kid').orderBy('kid').execute()).toEqual([{ kid: 'ka_1' }, { kid: 'ka_3' }]);
  });

  it('0056-excess-uses leaves every earlier visit without an excess use', async () => {
    const db = await fresh();
    const now = '2026-11-29T12:00:00.000Z';
    await migrateToLatest(db, through(before('0056-excess-uses')));
    await twoOrganizations(db, now);
    const visit = {
      log_id: 'log_before', organization_id: 'org_a', environment: 'live', code_id: null, method: 'walk_in', visitor_name: 'Musa Bello', visitor_phone: '+2348031112222', entry_point: 'Main gate',
      host_user_id: null, notes: null, status: 'checked_in', checked_in_at: now, checked_out_at: null, checkout_notes: null, recorded_by: null, auto_checked_out: 0,
      created_at: now, updated_at: now, erased_at: null, site_id: null, already_inside_override: 0,
    };
    await db.insertInto('access_logs').values(visit as never).execute();
    expect(await migrateToLatest(db, through('0056-excess-uses'))).toEqual(['0056-excess-uses']);
    expect(await db.selectFrom('access_logs').select(['log_id', 'admitted_offline']).where('log_id', '=', 'log_before').execute()).toEqual([{ log_id: 'log_before', admitted_offline: null }]);
  });

  it('0055-already-inside leaves every earlier visit without an override, and a new one may record it', async () => {
    const db = await fresh();
    const now = '2026-11-29T07:00:00.000Z';
    await migrateToLatest(db, through(before('0055-already-inside')));
    await twoOrganizations(db, now);
    const visit = (log_id: string) => ({
      log_id, organization_id: 'org_a', environment: 'live', code_id: null, method: 'walk_in', visitor_name: 'Musa Bello', visitor_phone: '+2348031112222', entry_point: 'Main gate',
      host_user_id: null, notes: null, status: 'checked_in', checked_in_at: now, checked_out_at: null, checkout_notes: null, recorded_by: null, auto_checked_out: 0,
      created_at: now, updated_at: now, erased_at: null, site_id: null,
    });
    await db.insertInto('access_logs').values(visit('log_before') as never).execute();
    expect(await migrateToLatest(db, through('0055-already-inside'))).toEqual(['0055-already-inside']);
    await db.insertInto('access_logs').values({ ...visit('log_after'), already_inside_override: 1 } as never).execute();
    const rows = await db.selectFrom('access_logs').select(['log_id', 'already_inside_override']).where('log_id', 'in', ['log_before', 'log_after']).orderBy('log_id').execute();
    expect(rows).toEqual([
      { log_id: 'log_after', already_inside_override: 1 },
      { log_id: 'log_before', already_inside_override: 0 },
    ]);
  });

  it('0045-alarm-loop-and-pass-links keeps every text as it was, stands an incident down once, and keeps pass links by their hash alone', async () => {
    const db = await fresh();
    const now = '2026-11-29T07:00:00.000Z';
    await migrateToLatest(db, through(before('0045-alarm-loop-and-pass-links')));
    const text = {
      message_id: 'sms_old', organization_id: 'org_a', environment: 'live', incident_id: 'inc_a', site_id: 'site_a', reason: 'escalated', recipient_name: 'Estate control',
      phone: '+2348031234567', body: 'TSARO: NO RESPONDER has accepted SOS', status: 'delivered', attempts: 1, next_attempt_at: now, locked_until: null,
      last_error: null, dlr_token_sealed: 'sealed', created_at: now, updated_at: now, sent_at: now, delivered_at: now, failed_at: null, log_id: null, cleared_at: now, merged_into: null,
    };
    await db.insertInto('text_messages').values(text as never).execute(); // 0044's columns
    expect(await migrateToLatest(db, through('0045-alarm-loop-and-pass-links'))).toEqual(['0045-alarm-loop-and-pass-links']);
    expect(await db.selectFrom('text_messages').select(['message_id', 'status', 'link_sealed']).execute()).toEqual([{ message_id: 'sms_old', status: 'delivered', link_sealed: null }]);
    expect(await db.selectFrom('alarm_stand_downs').selectAll().execute()).toEqual([]);
    // Once per incident: the second stand-down of the same incident is refused.
    const standDown = { incident_id: 'inc_a', organization_id: 'org_a', environment: 'live', cause: 'false_alarm', stood_down_at: now };
    expect(await insertStandDown(db, standDown)).toBe(true);
    expect(await insertStandDown(db, { ...standDown, cause: 'cancelled' })).toBe(false);
    expect(await db.selectFrom('alarm_stand_downs').select('cause').execute()).toEqual([{ cause: 'false_alarm' }]);
    const link = { token_hash: 'a'.repeat(64), code_id: 'acc_a', organization_id: 'org_a', environment: 'live', phone: '+2348031112222', created_at: now };
    await db.insertInto('pass_links').values(link).execute();
    await expect(db.insertInto('pass_links').values(link).execute()).rejects.toThrow();
    expect(Object.keys((await db.selectFrom('pass_links').selectAll().executeTakeFirstOrThrow()) as object).sort()).toEqual(['code_id', 'created_at', 'environment', 'organization_id', 'phone', 'token_hash']);
  });

  it("0050-duty-shifts-safety leaves every earlier responder in service with its status dated from its creation, and keeps one open alert per key while any number are cleared", async () => {
    const db = await fresh();
    const now = '2026-11-29T07:00:00.000Z';
    await migrateToLatest(db, through(before('0050-duty-shifts-safety')));
    const responder = { responder_id: 'rsp_old', environment: 'live', name: 'Old Hand', phone: '+2348030000000', token_hash: 'h_old', token_hint: 'rtk_…0000', status: 'active', available: 1, latitude: 6.5, longitude: 3.4, location_at: now, created_at: now, updated_at: now };
    await db.insertInto('responders').values(responder as never).execute(); // 0049's columns
    expect(await migrateToLatest(db, through('0050-duty-shifts-safety'))).toEqual(['0050-duty-shifts-safety']);
    const [row] = await dutyResponders(db, { responderIds: ['rsp_old'] });
    expect(dutyOf(row!, undefined, undefined)).toEqual({ duty_status: 'available', status_since: now, out_of_service_reason: null });
    const alert = (alert_id: string, open_key: string | null) => ({ alert_id, kind: 'no_fix', responder_id: 'rsp_old', incident_id: null, organization_id: null, message: 'm', raised_at: now, cleared_at: open_key ? null : now, open_key });
    expect(await openAlert(db, alert('alrt_1', 'no_fix:rsp_old:-'))).toBe(true);
    expect(await openAlert(db, alert('alrt_2', 'no_fix:rsp_old:-'))).toBe(false);
    await db.insertInto('staff_alerts').values([alert('alrt_3', null), alert('alrt_4', null)]).execute();
    expect((await db.selectFrom('staff_alerts').select('alert_id').orderBy('alert_id').execute()).map((r) => r.alert_id)).toEqual(['alrt_1', 'alrt_3', 'alrt_4']);
    // A shift names a responder and an area that exist.
    await expect(db.insertInto('shifts').values({ shift_id: 'shf_1', responder_id: 'rsp_old', area_id: 'area_none', start_hour: 8, end_hour: 16, created_by: 'stf_1', created_at: now }).execute()).rejects.toThrow();
  });

  it('0057-monthly-tallies adds up each month of the day tallies, counts, sums and histograms; 0058 leaves webhook_deliveries one index of its endpoint and attempt', async () => {
    const db = await fresh();
    await migrateToLatest(db, through(before('0057-monthly-tallies')));
    const tenant = { organization_id: 'org_a', environment: 'live' };
    const visit = (day: string, status: string, n: number, minutes: number) => ({ ...tenant, day, site_id: 'site_1', entry_point: 'Main Gate', method: 'code', status, n, minutes });
    await sql`insert into visit_tallies (organization_id, environment, day, site_id, entry_point, method, status, n, minutes) values ${sql.join(
      [visit('2026-09-03', 'checked_out', 2, 30), visit('2026-09-30', 'checked_out', 3, 45), visit('2026-10-01', 'checked_out', 1, 5), visit('2026-09-12', 'checked_in', 4, 0)].map(
        (row) => sql`(${sql.join(Object.values(row))})`,
      ),
    )}`.execute(db);
    const times = (day: string, n: number, toAssign: object) => sql`(${sql.join([...Object.values(tenant), day, 'site_1', n, JSON.stringify(toAssign), null])})`;
    await sql`insert into incident_time_tallies (organization_id, environment, day, site_id, n, to_assign, to_arrive) values ${sql.join([
      times('2026-09-01', 2, { 30: 1, 60: 1 }),
      times('2026-09-20', 3, { 30: 2, 900: 1 }),
      times('2026-10-02', 1, { 5: 1 }),
    ])}`.execute(db);

    // As 0036 made it on every database before 0058 (it no longer declares it).
    await sql`create index if not exists webhook_deliveries_by_attempt on webhook_deliveries (endpoint_id, attempted_at, delivery_id)`.execute(db);

    expect(await migrateToLatest(db, through('0058-one-delivery-index'))).toEqual(['0057-monthly-tallies', '0058-one-delivery-index']);
    const months = await sql<Record<string, unknown>>`select day, status, n, minutes from visit_tallies_by_month order by day, status`.execute(db);
    expect(months.rows).toEqual([
      { day: '2026-09', status: 'checked_in', n: 4, minutes: 0 },
      { day: '2026-09', status: 'checked_out', n: 5, minutes: 75 },
      { day: '2026-10', status: 'checked_out', n: 1, minutes: 5 },
    ]);
    const histograms = await sql<{ day: string; n: number; to_assign: string; to_arrive: string | null }>`select day, n, to_assign, to_arrive from incident_time_tallies_by_month order by day`.execute(db);
    expect(histograms.rows.map((row) => ({ ...row, to_assign: JSON.parse(row.to_assign) }))).toEqual([
      { day: '2026-09', n: 5, to_assign: { 30: 3, 60: 1, 900: 1 }, to_arrive: '{}' },
      { day: '2026-10', n: 1, to_assign: { 5: 1 }, to_arrive: '{}' },
    ]);
    const indexes =
      opened!.engine === 'postgres'
        ? (await sql<{ name: string }>`select indexname as name from pg_indexes where tablename = 'webhook_deliveries'`.execute(db)).rows
        : (await sql<{ name: string }>`select name from sqlite_master where type = 'index' and tbl_name = 'webhook_deliveries'`.execute(db)).rows;
    const names = indexes.map((row) => row.name);
    expect(names).toContain('webhook_deliveries_by_endpoint');
    expect(names).not.toContain('webhook_deliveries_by_attempt');
  });
});
