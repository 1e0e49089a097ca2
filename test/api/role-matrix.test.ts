import { describe, expect, it } from 'vitest';
import { ROLES, type Role } from '../../shared/schemas/console.ts';
import { partnerFeatures } from '../../server/partner-api.ts';
import { joinConsole, type JoinedPerson } from '../support/console.ts';
import { serverForSuite } from '../support/server.ts';

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
  // Owners only: ending someone else's sessions, and keeping a key made beyond the grant rule.
  if (['signOutPerson', 'listApiKeysToReview', 'keepReviewedApiKey'].includes(route.operationId)) return ['owner'];
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

describe('the role matrix: every route for every role', () => {
  const suite = serverForSuite();
  const people = new Map<Role, JoinedPerson>();
  const personOf = async (role: Role) => {
    if (!people.has(role)) people.set(role, await joinConsole(suite.server, suite.org.organizationId, role));
    return people.get(role)!;
  };

  it('covers every route the server serves to people, more than seventy', () => {
    expect(ROUTES.length).toBeGreaterThan(70);
  });

  it.each(ALL.map((role) => [role]))('%s', async (role) => {
    const person = await personOf(role as Role);
    const seen: string[] = [];
    const wrong: string[] = [];
    for (const route of ROUTES) {
      const path = pathOf(route);
      let status: number;
      if (route.path === '/events/stream') {
        const aborted = new AbortController();
        const answer = await fetch(suite.server.baseUrl + path, { headers: { cookie: person.browser.cookie!, 'tsaro-environment': 'live' }, signal: aborted.signal });
        status = answer.status;
        aborted.abort();
      } else {
        status = (await person.browser.request(route.method.toUpperCase(), path, route.method === 'get' || route.method === 'delete' ? undefined : {})).status;
      }
      const allowed = allowedRoles(route).includes(role as Role);
      seen.push(`${route.method} ${route.path}`);
      if (status === 401 || status === 429 || allowed === (status === 403)) wrong.push(`${route.method.toUpperCase()} ${route.path} (${route.operationId}): ${status}, expected ${allowed ? 'allowed' : '403'}`);
    }
    expect(wrong).toEqual([]);
    expect(seen).toHaveLength(ROUTES.length);
  });
});
