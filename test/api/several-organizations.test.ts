import { describe, expect, it } from 'vitest';
import { inviteOrReset } from '../../server/people/service.ts';
import { ConsoleBrowser, PASSWORD, joinConsole, totpCode } from '../support/console.ts';
import { incidentBody, serverForSuite } from '../support/server.ts';

/**
 * One person, several organizations (issue #34): a control-room operator invited to a second
 * estate company joins with the sign-in they have, works in either by the `Tsaro-Organization`
 * header without signing in again, has a role (and sites) per organization, and each
 * organization's audit log names them for what they did there and for their own sign-ins.
 */
describe('one person in several organizations', () => {
  const suite = serverForSuite();
  const tokenOf = (url: string) => url.split('/').pop()!;

  async function twoCompanies() {
    const first = await suite.server.createOrganization({ name: 'Shield Security' });
    const second = await suite.server.createOrganization({ name: 'Lekki Gardens Estate' });
    const operator = await joinConsole(suite.server, first.organizationId, 'operator', `control-${Math.random().toString(36).slice(2, 8)}@shield.example`);
    const owner = await joinConsole(suite.server, second.organizationId, 'owner');
    const invited = await owner.browser.post('/console/invitations', { email: operator.email, role: 'admin' });
    expect(invited.status, JSON.stringify(invited.body)).toBe(201);
    return { first, second, operator, owner, link: tokenOf(invited.body.invite_url) };
  }

  /** The operator's browser, working in `organizationId`. */
  const inOrganization = (browser: ConsoleBrowser, organizationId: string) => {
    const scoped = new ConsoleBrowser(suite.server.baseUrl, new URL(suite.server.baseUrl).origin);
    scoped.cookie = browser.cookie;
    scoped.csrf = browser.csrf;
    scoped.headers = { 'tsaro-organization': organizationId };
    return scoped;
  };

  it('joins a second organization with the same sign-in and switches between them without signing in again', async () => {
    const { first, second, operator, link } = await twoCompanies();
    const joined = await new ConsoleBrowser(suite.server.baseUrl, new URL(suite.server.baseUrl).origin).post(`/console/invitations/${link}/accept`, { password: PASSWORD });
    expect(joined.status, JSON.stringify(joined.body)).toBe(201);
    // Their second step is the one they have (an operator of the first enrolled it), for both.
    expect(joined.body.session.stage).toBe('totp');
    expect(joined.body.session.organization.organization_id).toBe(second.organizationId);
    expect(joined.body.session.organizations.map((org: { name: string; role: string }) => [org.name, org.role])).toEqual([
      ['Shield Security', 'operator'],
      ['Lekki Gardens Estate', 'admin'],
    ]);

    // The browser they had keeps working, in either organization, with a role in each.
    const inFirst = inOrganization(operator.browser, first.organizationId);
    const inSecond = inOrganization(operator.browser, second.organizationId);
    expect((await inFirst.get('/console/session')).body.session.person.role).toBe('operator');
    expect((await inSecond.get('/console/session')).body.session.person.role).toBe('admin');
    expect((await operator.browser.get('/console/session')).body.session.organization.organization_id).toBe(first.organizationId);
    // Each organization's data is its own: an incident of one is a 404 in the other.
    const incident = (await first.live.post('/incidents', incidentBody())).body.incident.incident_id as string;
    expect((await inFirst.get(`/incidents/${incident}`)).status).toBe(200);
    expect((await inSecond.get(`/incidents/${incident}`)).status).toBe(404);
    // People management follows the role in the organization worked in.
    expect((await inFirst.get('/console/people')).status).toBe(403);
    expect((await inSecond.get('/console/people')).status).toBe(200);
    // An organization they are not in is a 404, never a way in.
    const stranger = await suite.server.createOrganization({ name: 'Elsewhere' });
    expect((await inOrganization(operator.browser, stranger.organizationId).get('/console/session')).status).toBe(404);
    expect((await inOrganization(operator.browser, stranger.organizationId).get('/incidents')).status).toBe(404);
  });

  it("each organization's audit log names them: for what they did there, and for their own sign-in and password", async () => {
    const { first, second, operator, owner, link } = await twoCompanies();
    const joining = new ConsoleBrowser(suite.server.baseUrl, new URL(suite.server.baseUrl).origin);
    expect((await joining.post(`/console/invitations/${link}/accept`, { password: PASSWORD })).status).toBe(201);
    expect((await joining.post('/console/sign-in/totp', { code: await totpCode(suite.server, operator.totpSecret!, 1) })).status).toBe(200);

    const inFirst = inOrganization(operator.browser, first.organizationId);
    const made = await inFirst.post('/incidents', incidentBody());
    expect(made.status).toBe(201);
    const changed = await inFirst.post('/console/password', { current_password: PASSWORD, new_password: 'harmattan-lagoon-gate-43' });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);

    const firstAdmin = await joinConsole(suite.server, first.organizationId, 'admin');
    const logOf = async (browser: ConsoleBrowser) =>
      ((await browser.get('/audit-log?limit=100')).body.results as { action: string; actor: { id: string } }[]).filter((entry) => entry.actor.id === operator.personId).map((entry) => entry.action);
    const firstLog = await logOf(firstAdmin.browser);
    const secondLog = await logOf(inOrganization(owner.browser, second.organizationId));
    expect(firstLog).toContain('createIncident');
    expect(secondLog).not.toContain('createIncident');
    for (const log of [firstLog, secondLog]) {
      expect(log).toContain('changePassword');
      expect(log).toContain('acceptInvitation');
    }
  });

  it("one organization's admin cannot reset someone who belongs to another too; the host's CLI can", async () => {
    const { first, second, operator, owner, link } = await twoCompanies();
    expect((await new ConsoleBrowser(suite.server.baseUrl, new URL(suite.server.baseUrl).origin).post(`/console/invitations/${link}/accept`, { password: PASSWORD })).status).toBe(201);
    const refused = await inOrganization(owner.browser, second.organizationId).post(`/console/people/${operator.personId}/reset`, {});
    expect(refused.status).toBe(403);
    expect(refused.body.message).toContain('belongs to other organizations too');
    const cli = await inviteOrReset({ db: suite.server.running.database.db, clock: suite.server.clock, publicUrl: suite.server.baseUrl }, { organizationId: first.organizationId, email: operator.email, role: 'operator' });
    expect(cli.invitation.kind).toBe('reset');
    // Removed from one organization, they stay in the other.
    expect((await inOrganization(owner.browser, second.organizationId).delete(`/console/people/${operator.personId}`)).status).toBe(200);
    const session = (await operator.browser.get('/console/session')).body.session;
    expect(session.organizations.map((org: { organization_id: string }) => org.organization_id)).toEqual([first.organizationId]);
  });
});

/**
 * Issue #46: the seams between organizations hold. A link one organization made is checked when
 * it is used, against everything its person is then; a session's second step is asked for by each
 * organization it works in, by the person's role there.
 */
describe('the seams between organizations (issue #46)', () => {
  const suite = serverForSuite();
  const tokenOf = (url: string) => url.split('/').pop()!;
  const newBrowser = () => new ConsoleBrowser(suite.server.baseUrl, new URL(suite.server.baseUrl).origin);
  const inOrganization = (browser: ConsoleBrowser, organizationId: string) => {
    const scoped = newBrowser();
    scoped.cookie = browser.cookie;
    scoped.csrf = browser.csrf;
    scoped.headers = { 'tsaro-organization': organizationId };
    return scoped;
  };

  it("a stale reset link from the first organization, used after its person joined a second as owner, signs nobody in; their own session lives on", async () => {
    const first = await suite.server.createOrganization({ name: 'Shield Security' });
    const second = await suite.server.createOrganization({ name: 'Lekki Gardens Estate' });
    const firstOwner = await joinConsole(suite.server, first.organizationId, 'owner');
    const viewer = await joinConsole(suite.server, first.organizationId, 'viewer');
    const link = await firstOwner.browser.post(`/console/people/${viewer.personId}/reset`, {});
    expect(link.status).toBe(201);

    // The viewer joins the second organization as its owner, with their own password.
    const secondOwner = await joinConsole(suite.server, second.organizationId, 'owner');
    const invited = await secondOwner.browser.post('/console/invitations', { email: viewer.email, role: 'owner' });
    expect((await newBrowser().post(`/console/invitations/${tokenOf(invited.body.invite_url)}/accept`, { password: PASSWORD })).status).toBe(201);
    // A new reset from the first is refused, as before; the old link is now refused too.
    expect((await firstOwner.browser.post(`/console/people/${viewer.personId}/reset`, {})).body.message).toContain('belongs to other organizations too');
    const holder = newBrowser();
    expect((await holder.get(`/console/invitations/${tokenOf(link.body.invite_url)}`)).status).toBe(404);
    const used = await holder.post(`/console/invitations/${tokenOf(link.body.invite_url)}/accept`, { password: 'a-first-owners-new-pass-1' });
    expect(used.status, JSON.stringify(used.body)).toBe(404);
    expect(holder.cookie).toBeUndefined();
    expect((await inOrganization(holder, second.organizationId).get('/console/people')).status).toBe(401);
    // Nothing of theirs changed: their session in either organization, and their password.
    expect((await inOrganization(viewer.browser, first.organizationId).get('/console/session')).status).toBe(200);
    expect((await inOrganization(viewer.browser, second.organizationId).get('/console/session')).body.session.person.role).toBe('owner');
    expect((await newBrowser().post('/console/sign-in', { email: viewer.email, password: PASSWORD })).status).toBe(200);
    // Left the second organization again: the withdrawn link stays withdrawn.
    expect((await secondOwner.browser.delete(`/console/people/${viewer.personId}`)).status).toBe(200);
    expect((await holder.post(`/console/invitations/${tokenOf(link.body.invite_url)}/accept`, { password: 'a-first-owners-new-pass-1' })).status).toBe(404);
  });

  it('a session that never passed the second step (a viewer where viewers may skip it) cannot act as the admin of an organization joined since, until it gives a code there', async () => {
    const first = await suite.server.createOrganization({ name: 'Shield Security' });
    const second = await suite.server.createOrganization({ name: 'Lekki Gardens Estate' });
    const viewer = await joinConsole(suite.server, first.organizationId, 'viewer');
    expect(viewer.totpSecret).toBeUndefined();
    const secondOwner = await joinConsole(suite.server, second.organizationId, 'owner');
    const invited = await secondOwner.browser.post('/console/invitations', { email: viewer.email, role: 'admin' });
    const phone = newBrowser();
    const joined = await phone.post(`/console/invitations/${tokenOf(invited.body.invite_url)}/accept`, { password: PASSWORD });
    expect(joined.body.session.stage).toBe('enrol_totp');

    // The session they had, sent to the second organization: an admin's routes answer 401, saying what is due.
    const old = inOrganization(viewer.browser, second.organizationId);
    const refused = [
      await old.get('/console/people'),
      await old.post('/console/invitations', { email: 'accomplice@elsewhere.example', role: 'admin' }),
      await old.post('/api-keys', { name: 'Backdoor', scopes: ['admin'] }),
      await old.get('/incidents'),
      await old.post('/console/password', { current_password: PASSWORD, new_password: 'a-password-changed-here-1' }),
    ];
    expect(refused.map((answer) => answer.status)).toEqual([401, 401, 401, 401, 401]);
    expect(refused[0]!.body.message).toBe('Lekki Gardens Estate asks for the second step of its admins, and this session has not passed it: set up an authenticator app (POST /console/totp/enrolment)');
    expect((await old.get('/console/session')).body.session.stage).toBe('enrol_totp');
    // In the first organization, where viewers may skip it, the session works as before.
    const inFirst = inOrganization(viewer.browser, first.organizationId);
    expect((await inFirst.get('/console/session')).body.session.stage).toBe('active');
    expect((await inFirst.get('/incidents')).status).toBe(200);

    // They enrol on their phone: the old session is now asked for a code in the second, and may not replace the authenticator.
    const secret = (await phone.post('/console/totp/enrolment', {})).body.secret as string;
    expect((await phone.post('/console/totp/enrolment/confirm', { code: await totpCode(suite.server, secret) })).status).toBe(200);
    expect((await old.get('/console/session')).body.session.stage).toBe('totp');
    expect((await old.get('/console/people')).status).toBe(401);
    expect((await old.post('/console/totp/enrolment', { replace: true })).status).toBe(409);
    expect((await inFirst.post('/console/totp/enrolment', { replace: true })).status).toBe(409);
    // A code from the authenticator signs the old session in there (with a new token, for every organization).
    const coded = await old.post('/console/sign-in/totp', { code: await totpCode(suite.server, secret, 1) });
    expect(coded.status, JSON.stringify(coded.body)).toBe(200);
    expect(coded.body.session.stage).toBe('active');
    expect((await old.get('/console/people')).status).toBe(200);
    expect((await inOrganization(old, first.organizationId).get('/incidents')).status).toBe(200);
    // The token it had before the code is dead.
    expect((await inFirst.get('/console/session')).status).toBe(401);
  });
});
