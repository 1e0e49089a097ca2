import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STAFF_ROLES, type StaffRole } from '../../shared/schemas/staff.ts';
import { ROLES } from '../../shared/schemas/console.ts';
import { staffRouteList } from '../../server/staff-api.ts';
import { partnerFeatures } from '../../server/partner-api.ts';
import { inviteStaff } from '../../server/staff/service.ts';
import { ConsoleBrowser, joinConsole, PASSWORD, totpCode, type JoinedPerson } from '../support/console.ts';
import { joinStaff, staffBase, type JoinedStaff } from '../support/staff.ts';
import { openLive } from '../support/staff-live.ts';
import { startTestServer, type TestOrganization, type TestServer } from '../support/server.ts';

/**
 * The staff realm (issue #47): the service's own people sign in with a password and always a
 * second step, in sessions of their own; partners' people and keys never reach a staff route,
 * and staff never reach a partner's.
 */
let server: TestServer;
let org: TestOrganization;
beforeAll(async () => {
  server = await startTestServer();
  org = await server.createOrganization();
});
afterAll(() => server?.stop());

type Route = { method: string; path: string; access: string; operationId: string; guardOptions?: { staffRoles?: readonly StaffRole[] } };
const STAFF_ROUTES = (staffRouteList as unknown as Route[]).filter((route) => route.access === 'staff');

/** docs/operations.md, "Staff roles", written out again: the reports for every staff role, the queue for controllers and supervisors, the roster's changes for network admins (suspend and resume for supervisors too), the audit log for supervisors and network admins; areas and shifts drawn by network admins and read by all, alerts read by all and acknowledged by controllers and supervisors, out of service set by supervisors. */
function allowed(route: Route): readonly StaffRole[] {
  if (route.path === '/responders' && route.method === 'get') return STAFF_ROLES;
  if (route.path.startsWith('/reports')) return STAFF_ROLES;
  if (['/areas', '/shifts', '/alerts', '/live'].includes(route.path) && route.method === 'get') return STAFF_ROLES;
  if (route.path.startsWith('/areas') || route.path.startsWith('/shifts')) return ['network_admin'];
  if (route.path.endsWith('/out-of-service')) return ['supervisor'];
  if (['suspendResponder', 'resumeResponder', 'revokeResponderSignIn'].includes(route.operationId)) return ['network_admin', 'supervisor'];
  if (route.path.startsWith('/responders')) return ['network_admin'];
  if (route.path === '/audit-log') return ['supervisor', 'network_admin'];
  return ['controller', 'supervisor'];
}

const pathOf = (route: Route) => route.path.replace(/:(\w+)/g, 'nothing_here');
const send = async (browser: ConsoleBrowser, route: Route) => {
  // The staff channel is a stream that stays open: its status, then it is closed.
  if (route.path === '/live') {
    const live = await openLive(browser);
    live.close();
    return { status: live.status, body: undefined };
  }
  return browser.request(route.method.toUpperCase(), pathOf(route), route.method === 'get' ? undefined : {});
};

describe('staff sign-in', () => {
  it('joining asks for an authenticator before anything is reachable; a later sign-in asks for its code', async () => {
    const { invite_url } = await inviteStaff({ db: server.running.database.db, clock: server.clock, publicUrl: new URL(server.baseUrl).origin }, { email: 'tunde@tsaro.example', role: 'controller' });
    expect(invite_url).toMatch(/\/console\/staff\/join\/[\w-]{43}$/);
    const browser = new ConsoleBrowser(staffBase(server), new URL(server.baseUrl).origin);
    const joined = await browser.post(`/invitations/${invite_url.split('/').pop()}/accept`, { password: PASSWORD, name: 'Tunde Bello' });
    expect(joined.status).toBe(201);
    expect(joined.body.session).toMatchObject({ stage: 'enrol_totp', staff: { email: 'tunde@tsaro.example', role: 'controller', totp_enabled: false } });
    // A password alone reaches nothing.
    const early = await browser.get('/queue');
    expect(early.status).toBe(401);
    expect(early.body.message).toContain('authenticator');
    const secret = (await browser.post('/totp/enrolment')).body.secret;
    expect((await browser.post('/totp/enrolment/confirm', { code: await totpCode(server, secret) })).body.session.stage).toBe('active');
    expect((await browser.get('/queue')).status).toBe(200);
    expect((await browser.post('/sign-out')).status).toBe(200);
    expect((await browser.get('/queue')).status).toBe(401);

    const again = new ConsoleBrowser(staffBase(server), new URL(server.baseUrl).origin);
    const signedIn = await again.post('/sign-in', { email: 'tunde@tsaro.example', password: PASSWORD });
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.session.stage).toBe('totp');
    expect((await again.get('/queue')).status).toBe(401);
    expect((await again.get('/responders')).status).toBe(401);
    // The code already used at enrolment is refused, a wrong one too; the next one signs in.
    expect((await again.post('/sign-in/totp', { code: await totpCode(server, secret) })).status).toBe(401);
    expect((await again.post('/sign-in/totp', { code: '000000' })).status).toBe(401);
    server.clock.advance(30_000);
    const done = await again.post('/sign-in/totp', { code: await totpCode(server, secret) });
    expect(done.status).toBe(200);
    expect(done.body.session.stage).toBe('active');
    expect((await again.get('/queue')).status).toBe(200);
    expect((await again.get('/queue')).body).toEqual({ incidents: expect.any(Array) });
    // A wrong password: 401, and no session.
    const wrong = new ConsoleBrowser(staffBase(server), new URL(server.baseUrl).origin);
    expect((await wrong.post('/sign-in', { email: 'tunde@tsaro.example', password: 'not-the-password-at-all' })).status).toBe(401);
    expect(wrong.cookie).toBeUndefined();
  });

  it('invited again from the host, a staff member resets a lost password and phone: the old sessions end, the authenticator is enrolled anew', async () => {
    const staff = await joinStaff(server, 'controller', 'Sade Reset', 'sade@tsaro.example');
    expect((await staff.browser.get('/queue')).status).toBe(200);
    const { invite_url } = await inviteStaff({ db: server.running.database.db, clock: server.clock, publicUrl: new URL(server.baseUrl).origin }, { email: 'sade@tsaro.example', role: 'supervisor' });
    const browser = new ConsoleBrowser(staffBase(server), new URL(server.baseUrl).origin);
    const reset = await browser.post(`/invitations/${invite_url.split('/').pop()}/accept`, { password: 'a-brand-new-harmattan-42' });
    expect(reset.status).toBe(201);
    expect(reset.body.session).toMatchObject({ stage: 'enrol_totp', staff: { staff_id: staff.staffId, role: 'supervisor', totp_enabled: false } });
    expect((await staff.browser.get('/queue')).status).toBe(401);
    expect((await browser.get('/queue')).status).toBe(401);
    const old = new ConsoleBrowser(staffBase(server), new URL(server.baseUrl).origin);
    expect((await old.post('/sign-in', { email: 'sade@tsaro.example', password: PASSWORD })).status).toBe(401);
  });

  it('a staff change without the console Origin or CSRF token is refused', async () => {
    const staff = await joinStaff(server, 'network_admin');
    expect((await staff.browser.post('/responders', {}, { origin: 'https://evil.example' })).status).toBe(403);
    expect((await staff.browser.post('/responders', {}, { csrf: null })).status).toBe(403);
  });

  it('an email is a partner member or staff, never both, and says why', async () => {
    const owner = await joinConsole(server, org.organizationId, 'owner');
    await expect(inviteStaff({ db: server.running.database.db, clock: server.clock, publicUrl: 'http://x' }, { email: owner.email, role: 'controller' })).rejects.toThrow(/member of a partner organization/);
    const staff = await joinStaff(server, 'supervisor');
    const refused = await owner.browser.post('/console/invitations', { email: staff.email, role: 'viewer' });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toContain("Tsaro's own staff");
  });
});

describe('the staff role matrix', () => {
  let staff: Record<StaffRole, JoinedStaff>;
  let partners: JoinedPerson[];
  beforeAll(async () => {
    staff = {
      controller: await joinStaff(server, 'controller'),
      supervisor: await joinStaff(server, 'supervisor'),
      network_admin: await joinStaff(server, 'network_admin'),
    };
    partners = [];
    for (const role of ROLES) partners.push(await joinConsole(server, org.organizationId, role));
  });

  it('every staff route answers each staff role by the table, before reading a body or an id', async () => {
    expect(STAFF_ROUTES.length).toBeGreaterThanOrEqual(14);
    for (const route of STAFF_ROUTES) {
      for (const role of STAFF_ROLES) {
        const answer = await send(staff[role].browser, route);
        const label = `${route.method} ${route.path} as ${role}: ${answer.status} ${JSON.stringify(answer.body)}`;
        if (allowed(route).includes(role)) expect([401, 403], label).not.toContain(answer.status);
        else expect(answer.status, label).toBe(403);
      }
    }
  });

  it("no partner role's session and no partner key reaches a staff route (401)", async () => {
    for (const route of STAFF_ROUTES) {
      for (const person of partners) {
        const onStaff = new ConsoleBrowser(staffBase(server), new URL(server.baseUrl).origin);
        onStaff.cookie = person.browser.cookie;
        onStaff.csrf = person.browser.csrf;
        const answer = await send(onStaff, route);
        expect(answer.status, `${route.method} ${route.path} as partner`).toBe(401);
      }
      const keyed = await fetch(staffBase(server) + pathOf(route), { method: route.method.toUpperCase(), headers: { authorization: `Bearer ${org.keys.live}`, 'content-type': 'application/json' }, body: route.method === 'get' ? undefined : '{}' });
      expect(keyed.status, `${route.method} ${route.path} with a key`).toBe(401);
    }
  });

  it("no staff session reaches any partner route: keys, webhooks, people, incidents, all of them (401)", async () => {
    const partnerRoutes = partnerFeatures.flatMap((feature) => feature.routes as unknown as Route[]).filter((route) => route.access !== 'public' && route.access !== 'responder');
    expect(partnerRoutes.length).toBeGreaterThan(50);
    for (const role of STAFF_ROLES) {
      const asPartner = new ConsoleBrowser(server.baseUrl, new URL(server.baseUrl).origin);
      asPartner.cookie = staff[role].browser.cookie;
      asPartner.csrf = staff[role].browser.csrf;
      for (const route of partnerRoutes) {
        // The event stream answers a 401 before it opens, as any route.
        const answer = await send(asPartner, route);
        expect(answer.status, `${route.method} ${route.path} as ${role}: ${JSON.stringify(answer.body)}`).toBe(401);
      }
    }
  });

  it('the staff OpenAPI document lists every staff route, apart from the partner document', async () => {
    const document = (await (await fetch(`${staffBase(server)}/openapi.json`)).json()) as { paths: Record<string, Record<string, { operationId: string }>> };
    const operations = Object.values(document.paths).flatMap((methods) => Object.values(methods).map((op) => op.operationId));
    expect(operations.sort()).toEqual((staffRouteList as unknown as Route[]).map((route) => route.operationId).sort());
    const partner = (await (await fetch(`${server.baseUrl}/openapi.json`)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(partner.paths)).not.toContain('/queue');
  });
});
