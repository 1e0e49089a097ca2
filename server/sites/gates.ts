import type { EntryPoint } from '../../shared/schemas/sites.ts';
import type { Clock } from '../clock.ts';
import { inTransaction, type EntryPointRow, type Executor } from '../db/schema.ts';
import { reachesSite } from '../db/tenant.ts';
import { conflict, notFound } from '../http/errors.ts';
import { defaultSiteFor, entryPointRows, entryPointViews, reachedSite, rowToEntryPoint, type SiteCaller } from './service.ts';
import * as store from './store.ts';

/**
 * A site's gates (entry points): added, renamed, removed or retired, and found by any name they
 * had (issue #48). A kiosk is set up with its gate's name and keeps sending it: after a rename
 * that name is the gate's former name, and still reaches it.
 */

export async function listEntryPoints(db: Executor, caller: SiteCaller, siteId: string): Promise<EntryPoint[]> {
  await reachedSite(db, caller, siteId);
  return entryPointViews(db, [siteId]);
}

/** The gate as answered, with its former names. */
async function viewOf(db: Executor, row: EntryPointRow): Promise<EntryPoint> {
  return rowToEntryPoint(row, await store.formerNamesOf(db, [row.entry_point_id]));
}

/** A name no other gate of the site has now; a gate that had it before gives it up (the new gate takes over its kiosks). */
async function claimName(db: Executor, site: { site_id: string; name: string }, name: string, except?: string): Promise<void> {
  const holder = await store.findEntryPointByName(db, site.site_id, name);
  if (holder && holder.entry_point_id !== except) throw conflict(`name: ${site.name} already has an entry point named ${name}`);
  await store.releaseFormerName(db, site.site_id, name);
}

export async function addEntryPoint(db: Executor, clock: Clock, caller: SiteCaller, siteId: string, name: string): Promise<EntryPoint> {
  return inTransaction(db, async (trx) => {
    const site = await reachedSite(trx, caller, siteId);
    if (site.archived_at) throw conflict('Site is archived');
    await claimName(trx, site, name);
    const [entry] = entryPointRows(caller.organizationId, siteId, [name], clock.now());
    await store.insertEntryPoints(trx, [entry!]);
    return rowToEntryPoint(entry!, []);
  });
}

async function gateOfSite(db: Executor, caller: SiteCaller, siteId: string, entryPointId: string) {
  const site = await reachedSite(db, caller, siteId);
  const gate = await store.findEntryPointOfSite(db, siteId, entryPointId);
  if (!gate) throw notFound('Entry point');
  return { site, gate };
}

/**
 * Renames a gate. Its old name becomes a former name: a kiosk that still sends it reaches this
 * gate (its visits, heartbeats and roll calls), and statistics count both names as this gate.
 */
export async function renameEntryPoint(db: Executor, clock: Clock, caller: SiteCaller, siteId: string, entryPointId: string, name: string): Promise<EntryPoint> {
  return inTransaction(db, async (trx) => {
    const { site, gate } = await gateOfSite(trx, caller, siteId, entryPointId);
    if (site.archived_at) throw conflict('Site is archived');
    if (gate.name === name) return viewOf(trx, gate);
    await claimName(trx, site, name, gate.entry_point_id);
    await store.insertFormerName(trx, { entry_point_id: gate.entry_point_id, site_id: siteId, organization_id: caller.organizationId, name: gate.name, created_at: clock.now().toISOString() });
    await store.renameEntryPoint(trx, gate.entry_point_id, name);
    return viewOf(trx, { ...gate, name });
  });
}

/** Whether any code (either environment, any status) admits only at this gate: the access-codes feature answers. */
export type CodesBoundTo = (db: Executor, organizationId: string, siteId: string, entryPointId: string) => Promise<boolean>;

/**
 * Removes a gate, or, when codes are bound to it, retires it: it takes no new code, its codes
 * stay valid, and kiosks that name it still reach it. Removing a retired gate again answers it as it is.
 */
export async function removeEntryPoint(
  db: Executor,
  clock: Clock,
  caller: SiteCaller,
  ids: { siteId: string; entryPointId: string },
  codesBoundTo: CodesBoundTo,
): Promise<{ entry_point: EntryPoint; removed: boolean }> {
  return inTransaction(db, async (trx) => {
    const { gate } = await gateOfSite(trx, caller, ids.siteId, ids.entryPointId);
    if (await codesBoundTo(trx, caller.organizationId, ids.siteId, gate.entry_point_id)) {
      const retired = gate.retired_at ? gate : { ...gate, retired_at: clock.now().toISOString() };
      if (!gate.retired_at) await store.retireEntryPoint(trx, gate.entry_point_id, retired.retired_at!);
      return { entry_point: await viewOf(trx, retired), removed: false };
    }
    const view = await viewOf(trx, gate);
    await store.deleteEntryPoint(trx, gate.entry_point_id);
    return { entry_point: view, removed: true };
  });
}

type NamedGate = EntryPointRow & { former: boolean };

/** The caller's gates answering to `name`, now or before a rename. */
const gatesNamed = async (db: Executor, caller: SiteCaller, name: string): Promise<NamedGate[]> =>
  (await store.entryPointsNamed(db, caller.organizationId, name)).filter((entry) => reachesSite(caller.sites, entry.site_id, 'organization'));

/** The one site whose gate has the name now (else had it before), or undefined when none or several do. */
function siteOfNamedGates(named: readonly NamedGate[]): string | undefined {
  const current = named.filter((entry) => !entry.former);
  const sites = new Set((current.length ? current : named).map((entry) => entry.site_id));
  return sites.size === 1 ? [...sites][0] : undefined;
}

/**
 * A kiosk's gate, named in words: at `siteId` when the kiosk's site is known, else at the site
 * that has a gate of that name (now, else before a rename) when exactly one of the caller's sites
 * does, else the caller's default site. `entryPoint` is the gate's name now, so a kiosk set up
 * before a rename is listed at the renamed gate. A name no gate there answers to is registered
 * under that site when the kiosk's site was not known, so the console lists it.
 */
export async function gateOfKiosk(db: Executor, clock: Clock, caller: SiteCaller, name: string, siteId?: string): Promise<{ siteId: string; entryPoint: string }> {
  const named = await gatesNamed(db, caller, name);
  const site = siteId ?? siteOfNamedGates(named) ?? (await defaultSiteFor(db, caller));
  const atSite = named.filter((entry) => entry.site_id === site);
  const gate = atSite.find((entry) => !entry.former) ?? atSite[0];
  if (gate) return { siteId: site, entryPoint: gate.name };
  if (siteId === undefined) await store.insertEntryPointIfNew(db, entryPointRows(caller.organizationId, site, [name], clock.now())[0]!);
  return { siteId: site, entryPoint: name };
}

/** `gateOfKiosk`'s site without registering anything: where a gate named in words most likely is (a kiosk's first act an SOS). */
export async function siteForGateName(db: Executor, caller: SiteCaller, name: string): Promise<string> {
  return siteOfNamedGates(await gatesNamed(db, caller, name)) ?? defaultSiteFor(db, caller);
}

/**
 * Every name, now and before, of the caller's gates that answer to any of `names` (perhaps at one
 * site), with `names` themselves: what a visit recorded by a kiosk set up before a rename may say.
 * A roll call of "North gate" finds those who came in through it while its kiosk still said "Main gate".
 */
export async function everyNameOf(db: Executor, caller: SiteCaller, names: readonly string[], siteId?: string): Promise<string[]> {
  const gates = (await store.gatesAnsweringTo(db, caller.organizationId, names, siteId)).filter((gate) => reachesSite(caller.sites, gate.site_id, 'organization'));
  return [...new Set([...names, ...gates.map((gate) => gate.name)])];
}

/** A gate as statistics group by it: its id and its name now. */
export interface GateOfText {
  entry_point_id: string;
  name: string;
}

/**
 * Which gate the text a visit recorded (`entry_point`) names at its site: a gate's name now or
 * before a rename, so statistics group by gate, not by the stored text. Undefined for a text no
 * gate of the site answers to (a partner's free text).
 */
export async function gateResolver(db: Executor, caller: SiteCaller): Promise<(siteId: string | null, text: string | null) => GateOfText | undefined> {
  const rows = await store.entryPointsOfOrganization(db, caller.organizationId, caller.sites ?? null);
  const former = await store.formerNamesOf(db, rows.map((row) => row.entry_point_id));
  const byId = new Map(rows.map((row) => [row.entry_point_id, row]));
  const byName = new Map<string, GateOfText>();
  const key = (siteId: string, name: string) => `${siteId}\u0000${name}`;
  for (const name of former) {
    const gate = byId.get(name.entry_point_id);
    if (gate) byName.set(key(name.site_id, name.name), { entry_point_id: gate.entry_point_id, name: gate.name });
  }
  // A name a gate has now wins over the same name as another's former one (which a new gate took over).
  for (const row of rows) byName.set(key(row.site_id, row.name), { entry_point_id: row.entry_point_id, name: row.name });
  return (siteId, text) => (siteId && text !== null ? byName.get(key(siteId, text)) : undefined);
}
