import { SCOPES } from '../../shared/schemas/api-keys.ts';
import { Empty } from '../../shared/schemas/common.ts';
import {
  CreateEntryPointRequest,
  CreateSiteRequest,
  EntryPointEnvelope,
  EntryPointList,
  ListSitesQuery,
  SiteEnvelope,
  SiteIdParams,
  SitePage,
  UpdateSiteRequest,
} from '../../shared/schemas/sites.ts';
import { authOf, tenantOf } from '../auth/context.ts';
import { errors, ok } from '../http/responses.ts';
import { routeFor, routerOf } from '../http/define-route.ts';
import type { RouteDeps } from '../route-deps.ts';
import { addEntryPoint, archiveSite, createSite, getSite, listEntryPoints, listSites, updateSite } from './service.ts';

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
    summary: "Change a site's name, address, position, time zone or call list",
    description: 'Each field given is changed; `null` clears `address` or `location`. `call_list` is replaced whole, in the order given.',
    responses: { ...ok(200, 'The site', SiteEnvelope), ...errors(404, 409) },
    async handler({ params, body, db }, req, res, deps) {
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
    description: "Kept with its history and listed as archived. The organization's default site, where what names no site belongs, is not archived (409); nor one already archived.",
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
];

export const siteRoutes = (deps: RouteDeps) => routerOf(siteRouteList, deps, deps);
