import { sql, type ExpressionBuilder } from 'kysely';
import { deferredWrite } from '../db/deferred-write.ts';
import { preparedQuery } from '../db/prepared.ts';
import { isPostgres, type AccessCodeRow, type Database, type Executor, type PassKeyRow, type PassLinkRow, type Tenant } from '../db/schema.ts';
import { fromTenant, narrowedToSite, reachesSite, tenantParams, whereTenant } from '../db/tenant.ts';
import { pagedRows, searchedPage, type ListOrder, type PageRequest } from '../db/paged.ts';
import { listTotal, searchWay, tallySkip, talliedGroups, tenantTally, type ListTally, type Rollup, type TallySpec } from '../db/tallies.ts';
import { matchesText, SEARCH_COUNT_CEILING, type SearchSpec, type SearchWay } from '../db/text-search.ts';
import type { Total } from '../http/pagination.ts';
import { DAY_MS } from '../../shared/time.ts';

const scoped = (db: Executor, tenant: Tenant) =>
  db
    .selectFrom('access_codes')
    .where(whereTenant(tenant));

/** `scoped`, and within a limited caller's sites: a code made before sites is valid at each, so in each one's reach. */
const reached = (db: Executor, tenant: Tenant, siteId?: string) => fromTenant(db, tenant, 'access_codes', { siteId });

/** Codes, newest first: the cursor seeks `access_codes_by_created`. */
const CODE_ORDER: ListOrder = { name: 'access_codes', kind: 'keyset', column: 'created_at', id: 'code_id', direction: 'desc' };

/** `search`: the code, the visitor's name and phone, the purpose (migration 0036's text indexes). */
const CODE_SEARCH: SearchSpec = { columns: ['code', 'visitor_name', 'visitor_phone', 'purpose'], fts: 'access_codes_fts' };

const CODE_ROLLUP: Rollup = { table: 'code_tallies', dims: ['site_id', 'status'], sums: { used: () => sql<number>`case when b.use_count > 0 then 1 else 0 end` } };

/** Codes are tallied by creation day once used up, expired or revoked (server/db/tallies.ts). */
export const CODE_TALLY: TallySpec = {
  name: 'codes',
  lockKey: 3,
  table: 'access_codes',
  id: 'code_id',
  dayColumn: 'created_at',
  scope: ['organization_id', 'environment'],
  settled: sql<boolean>`b.status in ('used', 'expired', 'revoked')`,
  rollups: [CODE_ROLLUP],
};

/**
 * The tenant's next change number, for a code being created: the counter row stays locked until
 * the transaction commits, so creations of a tenant run one at a time (which keeps
 * `<PREFIX>-XXXX` strings unique without retrying) and numbers become visible in commit order.
 * A transaction that changes existing codes numbers them with `numberCodeChanges` instead, as its
 * last lock (server/access-codes/feed-numbering.ts says why).
 */
export async function nextChangeSeq(trx: Executor, tenant: Tenant): Promise<number> {
  const { rows } = await changeSeqsTaken(trx, { ...tenantParams(tenant), count: 1 });
  return rows[0]!.last_seq;
}

/**
 * Takes `count` numbers in one statement: the counter's first row starts at `count`, an existing
 * one moves on by `count` and stays locked. Answers the last number taken. Compiled once
 * (server/db/prepared.ts).
 */
const changeSeqsTaken = preparedQuery((trx, p: Tenant & { count: number }) =>
  trx
    .insertInto('feed_counters')
    .values({ organization_id: p.organizationId, environment: p.environment, last_seq: p.count })
    .onConflict((oc) =>
      oc.columns(['organization_id', 'environment']).doUpdateSet((eb) => ({ last_seq: eb('feed_counters.last_seq', '+', eb.ref('excluded.last_seq')) })),
    )
    .returning('last_seq'),
);

/**
 * Gives each of the tenant's codes in `codeIds` (distinct, in the order given) the next change
 * number, so kiosks following the feed see their current state. Locks the tenant's counter
 * until commit: call it last in the transaction. On PostgreSQL one statement (the counter and
 * the codes together), so the counter is held for that statement and the COMMIT only; a deferred
 * write (server/db/deferred-write.ts), it goes out in one round trip with the COMMIT.
 */
export async function numberCodeChanges(trx: Executor, tenant: Tenant, codeIds: readonly string[]): Promise<void> {
  if (codeIds.length === 0) return;
  if (isPostgres(trx)) {
    await sql`
      with taken as (
        insert into feed_counters (organization_id, environment, last_seq) values (${tenant.organizationId}, ${tenant.environment}, ${codeIds.length})
        on conflict (organization_id, environment) do update set last_seq = feed_counters.last_seq + excluded.last_seq
        returning last_seq
      )
      update access_codes set change_seq = taken.last_seq - ${codeIds.length} + numbered.n
      from taken, unnest(${codeIds}::text[]) with ordinality as numbered(code_id, n)
      where access_codes.code_id = numbered.code_id
        and access_codes.organization_id = ${tenant.organizationId} and access_codes.environment = ${tenant.environment}${deferredWrite}`.execute(trx);
    return;
  }
  const { rows } = await changeSeqsTaken(trx, { ...tenantParams(tenant), count: codeIds.length });
  const first = rows[0]!.last_seq - codeIds.length + 1;
  for (const [i, codeId] of codeIds.entries()) await changeSeqSet(trx, { ...tenantParams(tenant), codeId, changeSeq: first + i });
}

const changeSeqSet = preparedQuery((db, p: Tenant & { codeId: string; changeSeq: number }) =>
  db.updateTable('access_codes').set({ change_seq: p.changeSeq }).where('code_id', '=', p.codeId).where(whereTenant(p)),
);

export async function insertAccessCode(db: Executor, row: AccessCodeRow): Promise<void> {
  await db.insertInto('access_codes').values(row).execute();
}

export async function findAccessCode(db: Executor, tenant: Tenant, codeId: string): Promise<AccessCodeRow | undefined> {
  const row = (await accessCodeById(db, { ...tenantParams(tenant), codeId })).rows[0];
  return row && reachesSite(tenant.sites, row.site_id, 'everywhere') ? row : undefined;
}

/** Read on every validation: built and compiled once (server/db/prepared.ts). */
const accessCodeById = preparedQuery((db, p: Tenant & { codeId: string }) => scoped(db, p).selectAll().where('code_id', '=', p.codeId));

/** Whether any code of the organization (either environment, any status) admits only at this gate of the site. */
export async function anyCodeBoundTo(db: Executor, organizationId: string, siteId: string, entryPointId: string): Promise<boolean> {
  const row = await db
    .selectFrom('access_codes')
    .select('code_id')
    .where('organization_id', '=', organizationId)
    .where('environment', 'in', ['live', 'sandbox'])
    .where('site_id', '=', siteId)
    .where('entry_point_id', '=', entryPointId)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** The code a guard typed: the live one if there is one, else the most recent with that string. */
export async function findAccessCodeByCode(db: Executor, tenant: Tenant, code: string): Promise<AccessCodeRow | undefined> {
  // Sorted here, not in SQL: with ORDER BY created_at, SQLite's planner walks the tenant's
  // created_at index and reads every code (tens of milliseconds at 50,000 codes) instead of
  // looking the string up in access_codes_by_code. One string has few rows (a final code frees it).
  const { rows } = await accessCodesByCode(db, { ...tenantParams(tenant), code });
  rows.sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0));
  return rows.find((row) => row.status === 'active') ?? rows[0];
}

const accessCodesByCode = preparedQuery((db, p: Tenant & { code: string }) =>
  scoped(db, p).selectAll().where('code', '=', p.code),
);

export interface CodeFilter {
  siteId?: string;
  status?: string;
  visitorPhone?: string;
  search?: string;
  createdFrom?: string;
  createdBefore?: string;
}

function filteredCodes(db: Executor, tenant: Tenant, filter: CodeFilter, way?: SearchWay) {
  // A code made before sites (site_id null) is valid at every site, so it is listed with each.
  let base = reached(db, tenant, filter.siteId);
  if (filter.status) base = base.where('status', '=', filter.status);
  if (filter.visitorPhone) base = base.where('visitor_phone', '=', filter.visitorPhone);
  if (filter.createdFrom) base = base.where('created_at', '>=', filter.createdFrom);
  if (filter.createdBefore) base = base.where('created_at', '<', filter.createdBefore);
  if (filter.search) base = base.where(matchesText(db, CODE_SEARCH, filter.search, way));
  return base;
}

export async function listAccessCodeRows(db: Executor, tenant: Tenant, filter: CodeFilter, page: PageRequest) {
  return pagedRows(filteredCodes(db, tenant, filter).selectAll(), CODE_ORDER, page, { skip: tallySkip(db, codeTally(tenant, filter)) });
}

/** A search's page and total in one statement, when it can (`searchedPage`). */
export async function searchAccessCodeRows(db: Executor, tenant: Tenant, filter: CodeFilter, page: PageRequest) {
  const way = await searchWay(db, codeTally(tenant, filter));
  return searchedPage<AccessCodeRow>(db, 'access_codes', filteredCodes(db, tenant, filter, way), CODE_ORDER, page, SEARCH_COUNT_CEILING);
}

/** How the codes listed are counted (total, deep pages): a search up to its ceiling, an exact phone on its index, the rest from the tallies. */
function codeTally(tenant: Tenant, filter: CodeFilter): ListTally {
  return {
    spec: CODE_TALLY,
    rollup: CODE_ROLLUP,
    filter: {
      ...tenantTally(narrowedToSite(tenant, filter.siteId), 'everywhere'),
      equals: filter.status ? { status: filter.status } : {},
      from: filter.createdFrom,
      before: filter.createdBefore,
    },
    search: filter.search,
    narrowed: filter.visitorPhone,
  };
}

/** How many codes match (`codeTally`). */
export async function countAccessCodes(db: Executor, tenant: Tenant, filter: CodeFilter): Promise<Total> {
  return listTotal(db, () => filteredCodes(db, tenant, filter), codeTally(tenant, filter));
}

/**
 * Consumes one use if, at this instant in the database, the code still has one and is not
 * revoked: the conditional increment that makes N concurrent validations of a code with M uses
 * give exactly min(N, M) admissions. An active code whose last use this is becomes `used`. One
 * statement, decided in the database, so the caller does not read the code first. Answers the
 * code as changed, or undefined when it had no use left or was revoked.
 */
export async function consumeUse(db: Executor, codeId: string, updatedAt: string): Promise<AccessCodeRow | undefined> {
  return (await useConsumed(db, { updated_at: updatedAt, codeId })).rows[0];
}

/** Every admission by code: built and compiled once (server/db/prepared.ts). */
const useConsumed = preparedQuery((db, p: { updated_at: string; codeId: string }) =>
  db
    .updateTable('access_codes')
    .set((eb) => ({
      // SET reads the row as it was: the use being consumed is use_count + 1.
      status: eb
        .case()
        .when(eb.and([eb('status', '=', 'active'), eb(eb('use_count', '+', 1), '>=', eb.ref('max_uses'))]))
        .then('used')
        .else(eb.ref('status'))
        .end(),
      updated_at: p.updated_at,
      use_count: eb('use_count', '+', 1),
    }))
    .where('code_id', '=', p.codeId)
    .where('status', '!=', 'revoked')
    .whereRef('use_count', '<', 'max_uses')
    .returningAll(),
);

/** Moves a code out of `from`; false when it was no longer in `from` (someone else moved it). */
export async function changeCodeStatus(
  db: Executor,
  codeId: string,
  from: string,
  changes: Partial<Omit<AccessCodeRow, 'change_seq'>>,
): Promise<boolean> {
  const result = await db
    .updateTable('access_codes')
    .set(changes)
    .where('code_id', '=', codeId)
    .where('status', '=', from)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function codeStats(db: Executor, tenant: Tenant, createdFrom?: string, createdBefore?: string) {
  const groups = await talliedGroups(db, CODE_TALLY, CODE_ROLLUP, { ...tenantTally(tenant, 'everywhere'), from: createdFrom, before: createdBefore }, ['status']);
  const byStatus = new Map(groups.map((group) => [group.status, group.n]));
  return {
    total_generated: groups.reduce((sum, group) => sum + group.n, 0),
    total_used: groups.reduce((sum, group) => sum + group.sums.used!, 0),
    total_expired: byStatus.get('expired') ?? 0,
    total_revoked: byStatus.get('revoked') ?? 0,
    total_active: byStatus.get('active') ?? 0,
  };
}

export async function codesChangedAfter(db: Executor, tenant: Tenant, cursor: number, limit: number): Promise<AccessCodeRow[]> {
  return reached(db, tenant).selectAll().where('change_seq', '>', cursor).orderBy('change_seq').limit(limit).execute();
}

/** Final codes (used, expired, revoked) of an organization last changed before `changedBefore` whose visitor data is still there. */
export async function finalCodesToErase(db: Executor, organizationId: string, changedBefore: string, limit: number): Promise<Pick<AccessCodeRow, 'code_id' | 'environment'>[]> {
  return db
    .selectFrom('access_codes')
    .select(['code_id', 'environment'])
    .where('organization_id', '=', organizationId)
    .where('status', 'in', ['used', 'expired', 'revoked'])
    .where('updated_at', '<', changedBefore)
    .where('erased_at', 'is', null)
    .limit(limit)
    .execute();
}

/** Erases a code's visitor data (numbered afterwards, so the erasure reaches kiosks through the feed). */
export async function eraseCodeVisitorData(db: Executor, codeId: string, at: string): Promise<void> {
  await db
    .updateTable('access_codes')
    .set({ visitor_name: null, visitor_phone: null, visitor_email: null, erased_at: at })
    .where('code_id', '=', codeId)
    .execute();
}

export async function activeCodesDue(db: Executor, before: string, limit: number): Promise<AccessCodeRow[]> {
  return db
    .selectFrom('access_codes')
    .selectAll()
    .where('status', '=', 'active')
    .where('valid_until', '<=', before)
    .orderBy('valid_until')
    .orderBy('code_id')
    .limit(limit)
    .execute();
}

/** Keys of one site (siteId), or the organization's own (null): those signing codes made before sites. */
const keyOfSite = (siteId: string | null) => (eb: ExpressionBuilder<Database, 'pass_keys'>) =>
  siteId === null ? eb('pass_keys.site_id', 'is', null) : eb('pass_keys.site_id', '=', siteId);

/** The signing key of a site (or, null, the organization's) in the tenant's environment, if made yet. */
export async function findPassKey(db: Executor, tenant: Tenant, siteId: string | null): Promise<PassKeyRow | undefined> {
  return db.selectFrom('pass_keys').selectAll().where(whereTenant(tenant)).where('retired_at', 'is', null).where(keyOfSite(siteId)).executeTakeFirst();
}

/**
 * The keys a kiosk accepts passes of: signing keys and retired ones whose passes may still be
 * valid at `now`, newest first; every site's, or with `siteId` that site's and the organization's.
 */
export async function findAcceptedPassKeys(db: Executor, tenant: Tenant, now: string, siteId?: string): Promise<PassKeyRow[]> {
  let query = db
    .selectFrom('pass_keys')
    .selectAll()
    .where(whereTenant(tenant))
    .where((eb) => eb.or([eb('retired_at', 'is', null), eb('accept_until', '>', now)]));
  if (siteId !== undefined) query = query.where((eb) => eb.or([keyOfSite(siteId)(eb), keyOfSite(null)(eb)]));
  return query.orderBy('created_at', 'desc').orderBy('kid').execute();
}

/** The organization's active sites that have no signing key in the tenant's environment yet. */
export async function sitesWithoutPassKey(db: Executor, tenant: Tenant): Promise<string[]> {
  const rows = await db
    .selectFrom('sites')
    .select('sites.site_id')
    .where('sites.organization_id', '=', tenant.organizationId)
    .where('sites.archived_at', 'is', null)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('pass_keys')
            .select('pass_keys.kid')
            .whereRef('pass_keys.site_id', '=', 'sites.site_id')
            .where('pass_keys.organization_id', '=', tenant.organizationId)
            .where('pass_keys.environment', '=', tenant.environment)
            .where('pass_keys.retired_at', 'is', null),
        ),
      ),
    )
    .orderBy('sites.site_id')
    .execute();
  return rows.map((row) => row.site_id);
}

/**
 * Retires every signing key: the private key is erased (it signs nothing again), and kiosks
 * accept it until the last active code it signed (its site's, or for the organization's key
 * those made before sites) expires, a year at most. Answers how many.
 */
export async function retirePassKeys(db: Executor, now: Date): Promise<number> {
  const at = now.toISOString();
  const yearOn = new Date(now.getTime() + 366 * DAY_MS).toISOString();
  const signing = await db.selectFrom('pass_keys').select(['kid', 'organization_id', 'environment', 'site_id']).where('retired_at', 'is', null).execute();
  for (const key of signing) {
    const last = await db
      .selectFrom('access_codes')
      .select((eb) => eb.fn.max('valid_until').as('valid_until'))
      .where(whereTenant({ organizationId: key.organization_id, environment: key.environment }))
      .where((eb) => (key.site_id == null ? eb('site_id', 'is', null) : eb('site_id', '=', key.site_id)))
      .where('status', '=', 'active')
      .executeTakeFirst();
    const lastValid = last?.valid_until ?? at;
    await db
      .updateTable('pass_keys')
      .set({ retired_at: at, private_key: '', accept_until: lastValid < yearOn ? lastValid : yearOn })
      .where('kid', '=', key.kid)
      .execute();
  }
  return signing.length;
}

/**
 * Stores a signing key; false, and nothing written, when another transaction stored the same
 * site's (or the organization's) first. ON CONFLICT rather than catching the violation: a
 * failed statement aborts a whole PostgreSQL transaction, and the first key is made inside a
 * code's creation. The target names the partial unique index of the key's kind (migration 0033).
 */
export async function insertPassKey(db: Executor, row: PassKeyRow): Promise<boolean> {
  const result = await db
    .insertInto('pass_keys')
    .values(row)
    .onConflict((oc) =>
      row.site_id == null
        ? oc.columns(['organization_id', 'environment']).where('retired_at', 'is', null).where('site_id', 'is', null).doNothing()
        : oc.columns(['organization_id', 'environment', 'site_id']).where('retired_at', 'is', null).doNothing(),
    )
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
}

/** The tenant's codes among `codeIds` (those that exist), their status only. */
export async function statusesOfCodes(db: Executor, tenant: Tenant, codeIds: readonly string[]): Promise<Array<{ code_id: string; status: string }>> {
  if (codeIds.length === 0) return [];
  return reached(db, tenant).select(['code_id', 'status']).where('code_id', 'in', codeIds).execute();
}

/** A visitor's pass sent by text (migration 0045): kept by its token's hash alone. */
export async function insertPassLink(db: Executor, row: PassLinkRow): Promise<void> {
  await db.insertInto('pass_links').values(row).execute();
}

export async function findPassLink(db: Executor, tokenHash: string): Promise<PassLinkRow | undefined> {
  return db.selectFrom('pass_links').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
}

/** Passes sent since `since`: of one code, or of the whole tenant. */
export async function countPassLinks(db: Executor, scope: { codeId: string } | { tenant: Tenant }, since: string): Promise<number> {
  let query = db.selectFrom('pass_links').where('created_at', '>=', since);
  query = 'codeId' in scope ? query.where('code_id', '=', scope.codeId) : query.where(whereTenant(scope.tenant));
  const { n } = await query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(n);
}

/** The earliest pass sent since `since` (of a code, or of the tenant): when the hour's window frees a send again. */
export async function firstPassLinkSince(db: Executor, scope: { codeId: string } | { tenant: Tenant }, since: string): Promise<string | undefined> {
  let query = db.selectFrom('pass_links').where('created_at', '>=', since);
  query = 'codeId' in scope ? query.where('code_id', '=', scope.codeId) : query.where(whereTenant(scope.tenant));
  const row = await query.select((eb) => eb.fn.min('created_at').as('at')).executeTakeFirst();
  return row?.at ?? undefined;
}
