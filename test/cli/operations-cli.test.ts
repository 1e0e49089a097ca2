import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliFor } from '../support/cli.ts';
import { joinConsole } from '../support/console.ts';
import { startTestServer, type TestServer } from '../support/server.ts';


/** The operations centre's commands (CONTRACT.md): `staff invite`, and the roster's verbs beside the responder commands that keep their shape. */
describe('npx tsaro staff and the roster verbs', { timeout: 120_000 }, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.stop());

  const cli = () => cliFor({ DATABASE_URL: server.database.url, PUBLIC_URL: 'https://tsaro.example.ng' });
  /** In-process, as bin/tsaro.js runs it: exactly one line of JSON on stdout. */
  async function tsaro(...args: string[]): Promise<{ json: any; code: number }> {
    const answer = await cli().inProcess(...args);
    expect(answer.stdout.trim().split('\n')).toHaveLength(1);
    return answer;
  }

  it('staff invite answers exactly {invite_url}, and refuses a partner member\'s email saying why', async () => {
    // The process itself, once: what an operator's script runs.
    const invited = await cli().spawned('staff', 'invite', '--email', 'Kemi@Tsaro.example', '--role', 'controller', '--json');
    expect(invited.stdout.trim().split('\n')).toHaveLength(1);
    expect(invited.code).toBe(0);
    expect(Object.keys(invited.json)).toEqual(['invite_url']);
    expect(invited.json.invite_url).toMatch(/^https:\/\/tsaro\.example\.ng\/console\/staff\/join\/[\w-]{43}$/);
    const badRole = await tsaro('staff', 'invite', '--email', 'x@tsaro.example', '--role', 'owner', '--json');
    expect(badRole.code).toBe(2);
    const org = await server.createOrganization();
    const member = await joinConsole(server, org.organizationId, 'viewer');
    const refused = await tsaro('staff', 'invite', '--email', member.email, '--role', 'supervisor', '--json');
    expect(refused.code).toBe(1);
    expect(refused.json.error.message).toContain('is a member of a partner organization');
  });

  it('the roster verbs each answer {responder}; add, list and deactivate keep their exact shape', async () => {
    const added = await tsaro('responder', 'add', '--name', 'Ngozi Eze', '--phone', '+2348030001111', '--lat', '6.6', '--lng', '3.35', '--json');
    expect(Object.keys(added.json).sort()).toEqual(['responder', 'sign_in_url', 'token']);
    expect(Object.keys(added.json.responder).sort()).toEqual(['available', 'created_at', 'environment', 'location', 'location_at', 'name', 'phone', 'responder_id', 'status']);
    const id = added.json.responder.responder_id;
    const listed = await tsaro('responder', 'list', '--json');
    expect(Object.keys(listed.json)).toEqual(['responders']);
    expect(Object.keys(listed.json.responders.find((r: { responder_id: string }) => r.responder_id === id)).sort()).toEqual(Object.keys(added.json.responder).sort());

    const updated = await tsaro('responder', 'update', id, '--skills', 'medical,patrol', '--vehicle', 'motorbike', '--licence-expires', '2027-01-31', '--json');
    expect(Object.keys(updated.json)).toEqual(['responder']);
    expect(updated.json.responder).toMatchObject({ responder_id: id, standing: 'verified', skills: ['medical', 'patrol'], vehicle: 'motorbike', licence_expires: '2027-01-31' });
    expect((await tsaro('responder', 'update', id, '--licence-expires', '31/01/2027', '--json')).json.error.message).toContain('--licence-expires');
    const suspended = await tsaro('responder', 'suspend', id, '--reason', 'Licence under review', '--json');
    expect(suspended.json.responder).toMatchObject({ standing: 'suspended', standing_reason: 'Licence under review', standing_changed_by: 'operator' });
    expect((await tsaro('responder', 'suspend', id, '--json')).code).toBe(2);
    expect((await tsaro('responder', 'verify', id, '--json')).json.error.message).toBe('Responder is suspended: cannot verify');
    expect((await tsaro('responder', 'resume', id, '--json')).json.responder.standing).toBe('verified');
    const retired = await tsaro('responder', 'retire', id, '--json');
    expect(retired.json.responder).toMatchObject({ standing: 'retired', status: 'deactivated', available: false });
    expect((await tsaro('responder', 'verify', 'rsp_nobody', '--json')).json.error.message).toBe('Responder not found');
    const log = await server.running.database.db.selectFrom('service_audit_log').select(['action', 'actor']).where('subject_id', '=', id).orderBy('at').orderBy('entry_id').execute();
    expect(log).toEqual(['updateResponder', 'suspendResponder', 'resumeResponder', 'retireResponder'].map((action) => ({ action, actor: 'operator' })));
  });
});
