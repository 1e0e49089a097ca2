import { SCOPES } from '../../shared/schemas/api-keys.ts';
import { Empty } from '../../shared/schemas/common.ts';
import {
  CreateEntryPointRequest,
  CreateSiteRequest,
  EntryPointEnvelope,
  EntryPointIdParams,
  EntryPointList,
  ListSitesQuery,
  RemovedEntryPoint,
  SiteEnvelope,
  SiteIdParams,
  SitePage,
  UpdateEntryPointRequest,
  UpdateSiteRequest,
} from '../../shared/schemas/sites.ts';
import { codesBoundToGate } from '../access-codes/service.ts';
import { assertReachesEverySite, authOf, tenantOf } from '../auth/context.ts';
import { errors, ok } from '../http/responses.ts';
import { routeFor, routerOf } from '../http/define-route.ts';
import type { RouteDeps } from '../route-deps.ts';
import { addEntryPoint, listEntryPoints, removeEntryPoint, renameEntryPoint } from './gates.ts';
import { archiveSite, createSite, getSite, listSites, updateSite } from './service.ts';

const route = routeFor<RouteDeps>();
const tags = ['Sites'];
const orgOf = (req: Parameters<typeof authOf>[0]) => authOf(req).organization.organization_id;
/** The caller with their reach: a key or person limited to sites reads and changes only those. */
const callerOf = tenantOf;

/** Any key or person of the organization reads its sites (a kiosk its gate's call list); changing them is for owners and admins. */
const read = { access: 'access_codes:read', guardOptions: { anyScopeOf: SCOPES.filter((scope) => scope !== 'access_codes:read') } } as const;
const write = { access: 'admin', guardOptions: { roles: ['owner', 'admin'] } } as const;
/** Adding and archiving sites: for those who reach every site (a limited admin changes only their own sites). */
const writeEvery = { access: 'admin', guardOptions: { roles: ['owner', 'admin'], everySite: true } } as const;

/** Sites, an organization's estates or premises, and their entry points (docs/api.md, "Sites"). */
export const siteRouteList = [
  route({
    method: 'post',
    path: '/sites',
    ...writeEvery,
    idempotent: true,
    body: CreateSiteRequest,
    operationId: 'createSite',
    tags,
    summary: 'Add a site: an estate or premises, its gates and its call list',
    description:
      'Shared by the live and sandbox environments. A name the organization already uses, or a gate named twice, is a 409 naming the field. Phones are checked and answered in E.164; one without a country code is read as Nigerian.',
    responses: { ...ok(201, 'Created', SiteEnvelope), ...errors(409) },
    async handler({ body, db }, req, res, deps) {
      res.status(201).json({ site: await createSite(db, deps.clock, orgOf(req), body) });
    },
  }),
  route({
    method: 'get',
    path: '/sites',
    ...read,
    query: ListSitesQuery,
    operationId: 'listSites',
    tags,
    summary: "List the organization's sites, the default one first, then by name",
    responses: { ...ok(200, 'One page', SitePage), ...errors() },
    async handler({ query }, req, res, deps) {
      res.json(await listSites(deps.db, callerOf(req), query));
    },
  }),
  route({
    method: 'get',
    path: '/sites/:siteId',
    ...read,
    params: SiteIdParams,
    operationId: 'getSite',
    tags,
    summary: 'Get a site, with its gates and call list',
    responses: { ...ok(200, 'The site', SiteEnvelope), ...errors(404) },
    async handler({ params }, req, res, deps) {
      res.json({ site: await getSite(deps.db, callerOf(req), params.siteId) });
    },
  }),
  route({
    method: 'patch',
    path: '/sites/:siteId',
    ...write,
    idempotent: true,
    params: SiteIdParams,
    body: UpdateSiteRequest,
    operationId: 'updateSite',
    tags,
    summary: "Change a site's name, address, position, time zone or call list, or make it the default",
    description:
      "Each field given is changed; `null` clears `address` or `location`. `call_list` is replaced whole, in the order given. `is_default: true` makes it the organization's default site (where what names no site belongs) in place of the one before, which may then be archived: only for a key or person of every site (403), and not an archived site (409).",
    responses: { ...ok(200, 'The site', SiteEnvelope), ...errors(404, 409) },
    async handler({ params, body, db }, req, res, deps) {
      // Which site is the default is the whole organization's business, as adding and archiving sites are.
      if (body.is_default !== undefined) assertReachesEverySite(authOf(req), { everySite: true });
      res.json({ site: await updateSite(db, deps.clock, callerOf(req), params.siteId, body) });
    },
  }),
  route({
    method: 'post',
    path: '/sites/:siteId/archive',
    ...writeEvery,
    idempotent: true,
    params: SiteIdParams,
    body: Empty,
    operationId: 'archiveSite',
    tags,
    summary: 'Archive a site',
    description:
      "Kept with its history and listed as archived. The organization's default site, where what names no site belongs, is not archived (409): make another site the default first (`PATCH /sites/{siteId}` `{is_default: true}`). Nor is one already archived.",
    responses: { ...ok(200, 'Archived', SiteEnvelope), ...errors(404, 409) },
    async handler({ params, db }, req, res, deps) {
      res.json({ site: await archiveSite(db, deps.clock, orgOf(req), params.siteId) });
    },
  }),
  route({
    method: 'get',
    path: '/sites/:siteId/entry-points',
    ...read,
    params: SiteIdParams,
    operationId: 'listEntryPoints',
    tags,
    summary: "A site's entry points (its gates), by name",
    responses: { ...ok(200, 'Every entry point of the site', EntryPointList), ...errors(404) },
    async handler({ params }, req, res, deps) {
      res.json({ results: await listEntryPoints(deps.db, callerOf(req), params.siteId) });
    },
  }),
  route({
    method: 'post',
    path: '/sites/:siteId/entry-points',
    ...write,
    idempotent: true,
    params: SiteIdParams,
    body: CreateEntryPointRequest,
    operationId: 'createEntryPoint',
    tags,
    summary: 'Add an entry point (a gate) to a site',
    description: 'Its name is unique within the site (409 naming `name`); an archived site takes none (409).',
    responses: { ...ok(201, 'Added', EntryPointEnvelope), ...errors(404, 409) },
    async handler({ params, body, db }, req, res, deps) {
      res.status(201).json({ entry_point: await addEntryPoint(db, deps.clock, callerOf(req), params.siteId, body.name) });
    },
  }),
  route({
    method: 'patch',
    path: '/sites/:siteId/entry-points/:entryPointId',
    ...write,
    idempotent: true,
    params: EntryPointIdParams,
    body: UpdateEntryPointRequest,
    operationId: 'updateEntryPoint',
    tags,
    summary: 'Rename an entry point (a gate)',
    description:
      "Its new name is unique within the site (409 naming `name`; a name another gate had before is taken over from it). The old name stays the gate's (`former_names`): a kiosk set up with it still reaches this gate, its visits count as this gate in statistics, and a roll call or filter by the new name finds them. An archived site's gates are not renamed (409).",
    responses: { ...ok(200, 'Renamed', EntryPointEnvelope), ...errors(404, 409) },
    async handler({ params, body, db }, req, res, deps) {
      res.json({ entry_point: await renameEntryPoint(db, deps.clock, callerOf(req), params.siteId, params.entryPointId, body.name) });
    },
  }),
  route({
    method: 'delete',
    path: '/sites/:siteId/entry-points/:entryPointId',
    ...write,
    idempotent: true,
    params: EntryPointIdParams,
    operationId: 'removeEntryPoint',
    tags,
    summary: 'Remove an entry point (a gate), or retire it when codes are bound to it',
    description:
      'A gate no code is bound to (`entry_point_id`) is removed (`removed: true`); visits keep the name they recorded. A gate that codes are bound to is retired instead (`removed: false`, `retired_at`): it takes no new code (400 naming `entry_point_id`), its codes stay valid, and kiosks that name it still reach it.',
    responses: { ...ok(200, 'Removed or retired', RemovedEntryPoint), ...errors(404) },
    async handler({ params, db }, req, res, deps) {
      res.json(await removeEntryPoint(db, deps.clock, callerOf(req), params, codesBoundToGate));
    },
  }),
];

export const siteRoutes = (deps: RouteDeps) => routerOf(siteRouteList, deps, deps);
