import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleBrowser, PASSWORD, joinConsole, onHost, totpCode } from '../support/console.ts';
import { createMigratedDatabase, type TestDatabase } from '../support/database.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/** Issues #32 (finding 5) and #46 on two hosts over one PostgreSQL database. */
let database: TestDatabase;
let a: TestServer;
let b: TestServer;
beforeAll(async () => {
  database = await createMigratedDatabase('postgres');
  a = await startTestServer({ database });
  b = await startTestServer({ database });
});
afterAll(async () => {
  await a?.stop();
  await b?.stop();
  await database?.drop();
});

describe('at least one owner, across two hosts', () => {
  it('two owners, each on their own host, removing or demoting each other at once: one owner always remains (ten rounds each)', { timeout: 60_000 }, async () => {
    for (const change of ['remove', 'demote'] as const) {
      for (let round = 0; round < 10; round++) {
        const org = await a.createOrganization({ name: `Two Hosts ${change} ${round}` });
        const first = await joinConsole(a, org.organizationId, 'owner');
        const second = await joinConsole(a, org.organizationId, 'owner');
        const act = (browser: ConsoleBrowser, target: string) =>
          change === 'remove' ? browser.delete(`/console/people/${target}`) : browser.patch(`/console/people/${target}`, { role: 'viewer' });
        const answers = await Promise.all([act(first.browser, second.personId), act(onHost(b, second), first.personId)]);
        expect(answers.filter((answer) => answer.status === 200), JSON.stringify(answers.map((answer) => answer.body))).toHaveLength(1);
        const owners = await a.running.database.db.selectFrom('memberships').select('person_id').where('organization_id', '=', org.organizationId).where('role', '=', 'owner').execute();
        expect(owners).toHaveLength(1);
      }
    }
  });
});

/**
 * Issue #46 on two hosts over one PostgreSQL database, the session shared by both: a link is
 * checked where and when it is used, against what its person is by then on any host, and the
 * second step is the session's, whichever host it reaches.
 */
describe('the seams between organizations, across two hosts', () => {
  const tokenOf = (url: string) => url.split('/').pop()!;
  const browserOn = (server: TestServer, organizationId?: string, from?: ConsoleBrowser) => {
    const browser = new ConsoleBrowser(server.baseUrl, new URL(server.baseUrl).origin);
    browser.cookie = from?.cookie;
    browser.csrf = from?.csrf;
    if (organizationId) browser.headers = { 'tsaro-organization': organizationId };
    return browser;
  };

  /** The first organization with its owner and a viewer, the second with its owner. */
  async function twoOrganizations(round = 0) {
    const first = await a.createOrganization({ name: `Shield Security ${round}` });
    const second = await a.createOrganization({ name: `Lekki Gardens Estate ${round}` });
    return {
      first,
      second,
      firstOwner: await joinConsole(a, first.organizationId, 'owner'),
      viewer: await joinConsole(a, first.organizationId, 'viewer'),
      secondOwner: await joinConsole(b, second.organizationId, 'owner'),
    };
  }

  it('a reset link made on one host, used on the other after its person joined another organization there as owner, signs nobody in', async () => {
    const { first, second, firstOwner, viewer, secondOwner } = await twoOrganizations();
    const link = await firstOwner.browser.post(`/console/people/${viewer.personId}/reset`, {});
    expect(link.status).toBe(201);
    const invited = await secondOwner.browser.post('/console/invitations', { email: viewer.email, role: 'owner' });
    expect((await browserOn(b).post(`/console/invitations/${tokenOf(invited.body.invite_url)}/accept`, { password: PASSWORD })).status).toBe(201);
    for (const host of [b, a]) {
      const holder = browserOn(host);
      expect((await holder.post(`/console/invitations/${tokenOf(link.body.invite_url)}/accept`, { password: 'a-first-owners-new-pass-1' })).status).toBe(404);
      expect(holder.cookie).toBeUndefined();
    }
    // Their own session lives on, on both hosts, in both organizations.
    expect((await browserOn(a, first.organizationId, viewer.browser).get('/incidents')).status).toBe(200);
    expect((await browserOn(b, second.organizationId, viewer.browser).get('/console/session')).body.session.person.role).toBe('owner');
  });

  it("a session that never passed the second step, from one host, is refused an admin's routes of an organization joined on the other, until it gives a code; then it acts on both", async () => {
    const { first, second, viewer, secondOwner } = await twoOrganizations();
    const invited = await secondOwner.browser.post('/console/invitations', { email: viewer.email, role: 'admin' });
    const phone = browserOn(b);
    expect((await phone.post(`/console/invitations/${tokenOf(invited.body.invite_url)}/accept`, { password: PASSWORD })).status).toBe(201);
    const secret = (await phone.post('/console/totp/enrolment', {})).body.secret as string;
    expect((await phone.post('/console/totp/enrolment/confirm', { code: await totpCode(b, secret) })).status).toBe(200);

    const onB = browserOn(b, second.organizationId, viewer.browser);
    const onA = browserOn(a, second.organizationId, viewer.browser);
    for (const old of [onB, onA]) {
      expect((await old.get('/console/people')).status).toBe(401);
      expect((await old.post('/console/invitations', { email: 'accomplice@elsewhere.example', role: 'admin' })).status).toBe(401);
      expect((await old.post('/api-keys', { name: 'Backdoor', scopes: ['admin'] })).status).toBe(401);
      expect((await old.get('/console/session')).body.session.stage).toBe('totp');
    }
    expect((await browserOn(a, first.organizationId, viewer.browser).get('/incidents')).status).toBe(200);
    // A code on one host signs the session in for the other too.
    const coded = await onB.post('/console/sign-in/totp', { code: await totpCode(b, secret, 1) });
    expect(coded.status, JSON.stringify(coded.body)).toBe(200);
    expect((await browserOn(a, second.organizationId, onB).get('/console/people')).status).toBe(200);
  });

  it('joining another organization on one host while the first organization\'s reset link is used on the other: never both (ten rounds)', { timeout: 60_000 }, async () => {
    for (let round = 0; round < 10; round++) {
      const { first, second, firstOwner, viewer, secondOwner } = await twoOrganizations(round);
      const link = await firstOwner.browser.post(`/console/people/${viewer.personId}/reset`, {});
      const invited = await secondOwner.browser.post('/console/invitations', { email: viewer.email, role: 'owner' });
      const holder = browserOn(a);
      const [used, joined] = await Promise.all([
        holder.post(`/console/invitations/${tokenOf(link.body.invite_url)}/accept`, { password: 'a-first-owners-new-pass-1' }),
        browserOn(b).post(`/console/invitations/${tokenOf(invited.body.invite_url)}/accept`, { password: PASSWORD }),
      ]);
      const label = JSON.stringify([used.status, used.body, joined.status, joined.body]);
      expect([used.status, joined.status].filter((status) => status === 201), label).toHaveLength(1);
      const memberships = await a.running.database.db.selectFrom('memberships').select('organization_id').where('person_id', '=', viewer.personId).execute();
      if (used.status === 201) {
        // The reset came first: the password it set is the one now, and the join with the old one was refused.
        expect(memberships.map((row) => row.organization_id), label).toEqual([first.organizationId]);
        expect(used.body.session.organizations.map((org: { organization_id: string }) => org.organization_id)).toEqual([first.organizationId]);
      } else {
        expect(memberships.map((row) => row.organization_id).sort(), label).toEqual([first.organizationId, second.organizationId].sort());
        expect(holder.cookie).toBeUndefined();
      }
    }
  });
});
