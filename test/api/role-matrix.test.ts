import { describe, expect, it } from 'vitest';
import { ROLES, twoStepRequired, type Role } from '../../shared/schemas/console.ts';
import { SCOPES } from '../../shared/schemas/api-keys.ts';
import { partnerFeatures } from '../../server/partner-api.ts';
import { inviteOrReset } from '../../server/people/service.ts';
import { ConsoleBrowser, joinConsole, PASSWORD, type JoinedPerson } from '../support/console.ts';
import { serverForSuite, type TestServer } from '../support/server.ts';

/**
 * Every route the server serves, for a signed-in person of every role (issue #32): allowed
 * routes answer anything but 403 (a 400 for the empty body, a 404 for the made-up id), refused
 * ones answer 403 before they read a body or an id. The expectation is the role table of
 * docs/console.md written out again here, not read from server/auth/permissions.ts, so a route
 * wired to the wrong scope or roles fails this test.
 */
type Route = { method: string; path: string; access: string; operationId: string };
const ROUTES: Route[] = partnerFeatures.flatMap((feature) => feature.routes as unknown as Route[]).filter((route) => route.access !== 'public' && route.access !== 'responder');

const ALL: readonly Role[] = ROLES;
const OWNER_ADMIN: readonly Role[] = ['owner', 'admin'];

/** docs/console.md, "Roles", route by route. */
function allowedRoles(route: Route): readonly Role[] {
  const read = route.method === 'get';
  const segment = route.path.split('/')[1]!;
  // Owners only: ending someone else's sessions, keeping a key made beyond the grant rule, renaming the organization.
  if (['signOutPerson', 'listApiKeysToReview', 'keepReviewedApiKey', 'updateOrganization'].includes(route.operationId)) return ['owner'];
  // People, invitations, the two-step policy, the audit log and changing visitor policies: owners and admins.
  if (route.path.startsWith('/console/people') || route.path.startsWith('/console/invitations') || route.path === '/console/two-step') return OWNER_ADMIN;
  if (route.path === '/audit-log' || (route.path === '/visitor-policies' && !read)) return OWNER_ADMIN;
  // Sites: everyone reads them (a kiosk its gate's call list); owners and admins change them.
  if (segment === 'sites') return read ? ALL : OWNER_ADMIN;
  // One's own sessions and password: everyone.
  if (route.path.startsWith('/console/')) return ALL;
  // The event stream opens for any read scope.
  if (route.path === '/events/stream') return ALL;
  // Keys, webhook endpoints, events and reading the visitor policy: developers manage them, viewers read them, operators neither.
  if (['api-keys', 'webhook-endpoints', 'events', 'visitor-policies'].includes(segment)) return read ? ['owner', 'admin', 'developer', 'viewer'] : ['owner', 'admin', 'developer'];
  // What a gate does (its code changes, pass keys, heartbeats): the roles that run gates.
  if (['accessCodeChanges', 'passKeys'].includes(route.operationId)) return ['owner', 'admin', 'operator'];
  // Incidents, access codes and logs, kiosks, roll calls, threat intelligence: operators act, developers and viewers read.
  return read ? ALL : ['owner', 'admin', 'operator'];
}

/** The route's path with made-up ids: allowed routes answer 404 or 400, never 403. */
const pathOf = (route: Route) => route.path.replace(/:(\w+)/g, (_m, name: string) => `${name.replace(/Id$/, '')}_made_up`);

/** What one route answers a person's browser (the event stream is opened and dropped at once). */
async function answerOf(server: TestServer, browser: ConsoleBrowser, route: Route): Promise<number> {
  const path = pathOf(route);
  if (route.path === '/events/stream') {
    const aborted = new AbortController();
    const answer = await fetch(server.baseUrl + path, { headers: { cookie: browser.cookie!, 'tsaro-environment': 'live', ...browser.headers }, signal: aborted.signal });
    aborted.abort();
    return answer.status;
  }
  return (await browser.request(route.method.toUpperCase(), path, route.method === 'get' || route.method === 'delete' ? undefined : {})).status;
}

/**
 * For a role limited to sites (issue #34): the organization's people, invitations, two-step
 * policy, visitor policies, audit log, the owners' key review, and adding or archiving sites
 * are for those who reach every site; everything else as the role allows, within their sites.
 */
function needsEverySite(route: Route): boolean {
  if (route.path.startsWith('/console/people') || route.path.startsWith('/console/invitations') || route.path === '/console/two-step') return true;
  if (['/audit-log', '/visitor-policies'].includes(route.path)) return true;
  if (['signOutPerson', 'listApiKeysToReview', 'keepReviewedApiKey', 'createSite', 'archiveSite', 'updateOrganization'].includes(route.operationId)) return true;
  return false;
}

describe.each([
  ['every site', false],
  ['one site', true],
] as const)('the role matrix: every route for every role, reaching %s', (_reach, limited) => {
  const suite = serverForSuite();
  const people = new Map<Role, JoinedPerson>();
  let siteId: string | undefined;
  const personOf = async (role: Role) => {
    if (limited && !siteId) siteId = (await suite.org.live.post('/sites', { name: 'Admiralty Estate' })).body.site.site_id as string;
    if (!people.has(role)) people.set(role, await joinConsole(suite.server, suite.org.organizationId, role, undefined, { siteIds: siteId ? [siteId] : undefined }));
    return people.get(role)!;
  };
  const roles = limited ? ALL.filter((role) => role !== 'owner') : ALL;

  it('covers every route the server serves to people, more than seventy', () => {
    expect(ROUTES.length).toBeGreaterThan(70);
  });

  it.each(roles.map((role) => [role]))('%s', async (role) => {
    const person = await personOf(role as Role);
    const seen: string[] = [];
    const wrong: string[] = [];
    for (const route of ROUTES) {
      const status = await answerOf(suite.server, person.browser, route);
      const allowed = allowedRoles(route).includes(role as Role) && !(limited && needsEverySite(route));
      seen.push(`${route.method} ${route.path}`);
      if (status === 401 || status === 429 || allowed === (status === 403)) wrong.push(`${route.method.toUpperCase()} ${route.path} (${route.operationId}): ${status}, expected ${allowed ? 'allowed' : '403'}`);
    }
    expect(wrong).toEqual([]);
    expect(seen).toHaveLength(ROUTES.length);
  });
});

/**
 * Issue #46: the second step is the session's, asked for by the organization it works in. Someone
 * signed in where viewers may skip it (no authenticator, no code) joins a second organization with
 * each role; their first session, sent there, answers 401 on every route where that role must pass
 * the second step (owner and admin always, operator by the default policy), and the role table on
 * every route where it may skip it (developer, viewer).
 */
describe('the role matrix for a session that never passed the second step, in an organization joined since', () => {
  const suite = serverForSuite();

  it.each(ALL.map((role) => [role]))('%s', async (role) => {
    const home = await suite.server.createOrganization({ name: 'Where viewers skip the second step' });
    const person = await joinConsole(suite.server, home.organizationId, 'viewer');
    expect(person.totpSecret).toBeUndefined();
    const { invite_url } = await inviteOrReset({ db: suite.server.running.database.db, clock: suite.server.clock, publicUrl: suite.server.baseUrl }, { organizationId: suite.org.organizationId, email: person.email, role: role as Role });
    const phone = new ConsoleBrowser(suite.server.baseUrl, new URL(suite.server.baseUrl).origin);
    expect((await phone.post(`/console/invitations/${invite_url.split('/').pop()}/accept`, { password: PASSWORD })).status).toBe(201);

    const first = new ConsoleBrowser(suite.server.baseUrl, new URL(suite.server.baseUrl).origin);
    first.cookie = person.browser.cookie;
    first.csrf = person.browser.csrf;
    first.headers = { 'tsaro-organization': suite.org.organizationId };
    const due = twoStepRequired(role as Role, null);
    const wrong: string[] = [];
    for (const route of ROUTES) {
      const status = await answerOf(suite.server, first, route);
      const allowed = allowedRoles(route).includes(role as Role);
      const expected = due ? 'a 401' : allowed ? 'allowed' : '403';
      const got = status === 401 ? 'a 401' : status === 403 ? '403' : status === 429 ? '429' : 'allowed';
      if (got !== expected) wrong.push(`${route.method.toUpperCase()} ${route.path} (${route.operationId}): ${status}, expected ${expected}`);
    }
    expect(wrong).toEqual([]);
    expect((await first.get('/console/session')).body.session.stage).toBe(due ? 'enrol_totp' : 'active');
  });
});

describe('the key matrix: every route for a key limited to one site, holding every scope', () => {
  const suite = serverForSuite();

  it('answers 403 exactly where a key of every site is needed', async () => {
    const siteId = (await suite.org.live.post('/sites', { name: 'Admiralty Estate' })).body.site.site_id as string;
    const made = await suite.org.live.post('/api-keys', { name: 'Admiralty', scopes: [...SCOPES], site_ids: [siteId] });
    expect(made.status).toBe(201);
    const key = suite.server.client(made.body.secret);
    const wrong: string[] = [];
    const keyRoutes = ROUTES.filter((route) => route.access !== 'person' && route.path !== '/events/stream');
    expect(keyRoutes.length).toBeGreaterThan(50);
    for (const route of keyRoutes) {
      const status = (await key.request(route.method.toUpperCase(), pathOf(route), { body: route.method === 'get' || route.method === 'delete' ? undefined : {} })).status;
      const refused = needsEverySite(route);
      if (status === 401 || status === 429 || refused !== (status === 403)) wrong.push(`${route.method.toUpperCase()} ${route.path} (${route.operationId}): ${status}, expected ${refused ? '403' : 'allowed'}`);
    }
    expect(wrong).toEqual([]);
  });
});
