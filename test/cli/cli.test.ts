import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliFor } from '../support/cli.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

// Most calls run the CLI in-process; the few that spawn bin/tsaro.js (a Node process with tsx) take seconds on a loaded machine.
describe('npx tsaro (operator CLI)', { timeout: 90_000 }, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.stop());

  // In-process (the same runCli bin/tsaro.js runs); the tests that are about the process itself spawn it.
  const tsaro = (...args: string[]) => cliFor({ DATABASE_URL: server.database.url }).inProcess(...args);
  const spawned = (...args: string[]) => cliFor({ DATABASE_URL: server.database.url }).spawned(...args);

  it('org create prints exactly one JSON object with the organization and its two owner keys, which work', async () => {
    const { json, stdout, code } = await spawned('org', 'create', '--name', 'Lekki Gardens', '--plan', 'growth', '--prefix', 'LKG', '--json');
    expect(code).toBe(0);
    expect(stdout.trim().split('\n')).toHaveLength(1);
    expect(json.organization).toMatchObject({ name: 'Lekki Gardens', plan: 'growth', subscription_status: 'active', code_prefix: 'LKG' });
    expect(json.organization.organization_id).toMatch(/^org_/);
    expect(json.keys.live).toMatch(/^svc_live_/);
    expect(json.keys.sandbox).toMatch(/^svc_test_/);
    const live = await server.client(json.keys.live).get('/api-keys');
    expect(live.status).toBe(200);
    expect(live.body.results[0].scopes).toContain('admin');
    expect((await server.client(json.keys.sandbox).get('/incidents')).status).toBe(200);
  });

  it('org update suspends (402), resumes, changes plan and sets a custom limit', async () => {
    const { json: created } = await tsaro('org', 'create', '--name', 'Ikoyi Towers', '--json');
    const id = created.organization.organization_id;
    const client = server.client(created.keys.live);
    expect((await server.changedElsewhere(() => tsaro('org', 'update', id, '--suspend', '--json'))).json.organization.subscription_status).toBe('suspended');
    expect((await client.get('/incidents')).status).toBe(402);
    expect((await server.changedElsewhere(() => tsaro('org', 'update', id, '--resume', '--json'))).json.organization.subscription_status).toBe('active');
    expect((await client.get('/incidents')).status).toBe(200);
    const updated = await server.changedElsewhere(() => tsaro('org', 'update', id, '--plan', 'enterprise', '--rate-limit', '5', '--json'));
    expect(updated.json.organization).toMatchObject({ plan: 'enterprise', rate_limit_per_minute: 5 });
    expect((await client.get('/incidents')).headers.get('x-ratelimit-limit')).toBe('5');
    expect((await tsaro('org', 'update', id, '--rate-limit', 'plan', '--json')).json.organization.rate_limit_per_minute).toBe(1000);
    expect((await server.changedElsewhere(() => tsaro('org', 'update', id, '--plan', 'none', '--json'))).json.organization.plan).toBe('none');
    expect((await client.get('/incidents')).status).toBe(402);
  });

  it('org update sets and clears the visitor policies, which the admin API then reports', async () => {
    const { json: created } = await tsaro('org', 'create', '--name', 'Policy Estate', '--json');
    const id = created.organization.organization_id;
    const set = await tsaro('org', 'update', id, '--auto-checkout-hours', '12', '--retention-days', '90', '--json');
    expect(set.json.organization).toMatchObject({ auto_checkout_hours: 12, retention_days: 90 });
    const admin = server.client(created.keys.live);
    expect((await admin.get('/visitor-policies')).body).toEqual({ auto_checkout_hours: 12, retention_days: 90 });
    const off = await tsaro('org', 'update', id, '--auto-checkout-hours', 'off', '--json');
    expect(off.json.organization).toMatchObject({ auto_checkout_hours: null, retention_days: 90 });
    const bad = await tsaro('org', 'update', id, '--retention-days', '0', '--json');
    expect(bad.code).toBe(1);
    expect(bad.json.error.message).toContain('--retention-days');
  });

  it('org update --name renames the organization and --prefix starts new codes with another prefix; codes made before keep theirs (issue #48)', async () => {
    const { json: created } = await tsaro('org', 'create', '--name', 'Demo Estate', '--prefix', 'DEMX', '--json');
    const id = created.organization.organization_id;
    const client = server.client(created.keys.live);
    const visitor = { visitor_name: 'Ada Obi', visitor_phone: '+2348031234567' };
    const before = (await client.post('/access-codes', visitor)).body.access_code.code;
    const updated = await server.changedElsewhere(() => tsaro('org', 'update', id, '--name', 'Lekki Security Ltd', '--prefix', 'lksx', '--json'));
    expect(updated.code).toBe(0);
    expect(updated.stdout.trim().split('\n')).toHaveLength(1);
    expect(updated.json.organization).toMatchObject({ organization_id: id, name: 'Lekki Security Ltd', code_prefix: 'LKSX', plan: 'starter' });
    expect((await client.get('/organization')).body.organization.name).toBe('Lekki Security Ltd');
    expect((await client.post('/access-codes', visitor)).body.access_code.code).toMatch(/^LKSX-/);
    expect((await client.post('/access-codes/validate', { code: before })).body.valid).toBe(true);
    // Another organization's prefix, or one that is not letters, is refused naming what to fix.
    const { json: other } = await tsaro('org', 'create', '--name', 'Other', '--prefix', 'OTHR', '--json');
    const clash = await tsaro('org', 'update', other.organization.organization_id, '--prefix', 'LKSX', '--json');
    expect([clash.code, clash.json.error.message]).toEqual([1, 'code_prefix: LKSX is taken by another organization']);
    const bad = await tsaro('org', 'update', id, '--prefix', 'L1', '--json');
    expect([bad.code, bad.json.error.message]).toEqual([1, '--prefix: L1 is not 2 to 6 letters (A-Z)']);
    expect((await tsaro('org', 'update', id, '--name', '  ', '--json')).json.error.message).toBe('--name: 1 to 200 characters');
  });

  it('key create prints {api_key, secret}; key revoke prints {api_key} and the key stops working', async () => {
    const { json: org } = await tsaro('org', 'create', '--name', 'Gate Test', '--json');
    const created = await tsaro('key', 'create', '--org', org.organization.organization_id, '--env', 'sandbox', '--scopes', 'incidents:read,logs:read', '--name', 'Gate 2', '--json');
    expect(created.code).toBe(0);
    expect(created.json.api_key).toMatchObject({ name: 'Gate 2', environment: 'sandbox', scopes: ['incidents:read', 'logs:read'] });
    expect(created.json.secret).toMatch(/^svc_test_/);
    expect((await server.client(created.json.secret).get('/incidents')).status).toBe(200);
    const revoked = await server.changedElsewhere(() => tsaro('key', 'revoke', created.json.api_key.key_id, '--json'));
    expect(revoked.json.api_key.revoked_at).toEqual(expect.any(String));
    expect((await server.client(created.json.secret).get('/incidents')).status).toBe(401);
  });

  it('responder add prints {responder, token}; list and deactivate answer JSON too', async () => {
    const added = await tsaro('responder', 'add', '--name', 'Ngozi Eze', '--phone', '+2348030001111', '--lat', '6.6', '--lng', '3.35', '--env', 'sandbox', '--json');
    expect(added.code).toBe(0);
    expect(added.json.responder).toMatchObject({ name: 'Ngozi Eze', environment: 'sandbox', status: 'active', available: true, location: { latitude: 6.6, longitude: 3.35 } });
    expect(added.json.token).toMatch(/^rtk_/);
    expect(Object.keys(added.json).sort()).toEqual(['responder', 'sign_in_url', 'token']);
    // The sign-in link (PUBLIC_URL, default http://HOST:PORT) carries the token in its fragment, never sent to a server.
    expect(added.json.sign_in_url).toBe(`http://127.0.0.1:3000/responder/#token=${added.json.token}`);
    const id = added.json.responder.responder_id;
    const listed = await tsaro('responder', 'list', '--env', 'sandbox', '--json');
    expect(listed.json.responders.map((r: { responder_id: string }) => r.responder_id)).toContain(id);
    const off = await tsaro('responder', 'deactivate', id, '--json');
    expect(off.json.responder).toMatchObject({ responder_id: id, status: 'deactivated', available: false });
    const bad = await tsaro('responder', 'add', '--name', 'X', '--phone', '+234803', '--lat', '95', '--lng', '3', '--json');
    expect(bad.code).toBe(1);
    expect(bad.json.error.message).toBe('--lat: a latitude from -90 to 90');
  });

  it('responder add without --json prints the sign-in link at PUBLIC_URL and its QR code for the terminal', async () => {
    const { stdout } = await cliFor({ DATABASE_URL: server.database.url, PUBLIC_URL: 'https://tsaro.example.ng/' }).spawned('responder', 'add', '--name', 'Musa Ibrahim', '--phone', '+2348030002222', '--lat', '9.06', '--lng', '7.49');
    const link = /Sign-in link .*: (https:\/\/tsaro\.example\.ng\/responder\/#token=rtk_[0-9A-Za-z]{40})$/m.exec(stdout)?.[1];
    expect(link).toBeDefined();
    // The terminal QR: rows of half-block characters (colour codes aside), as wide as each other.
    const qrRows = stdout
      .split('\n')
      .filter((line) => /[▀▄█]/.test(line))
      .map((line) => line.replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g'), ''));
    expect(qrRows.length).toBeGreaterThan(10);
    expect(new Set(qrRows.map((row) => row.length)).size).toBe(1);
  });

  it('threat import prints {imported, skipped}; the same file again imports nothing', async () => {
    const file = new URL('../../threat-data/ucdp/ucdp_ged_ssa_supplement.csv', import.meta.url).pathname;
    const first = await tsaro('threat', 'import', '--format', 'ucdp', file, '--json');
    expect(first).toMatchObject({ code: 0, json: { imported: 4573, skipped: 0 } });
    const again = await tsaro('threat', 'import', '--format', 'ucdp', file, '--json');
    expect(again.json).toEqual({ imported: 0, skipped: 4573 });
    const missing = await tsaro('threat', 'import', '--format', 'ucdp', '/nonexistent.csv', '--json');
    expect(missing.code).toBe(1);
    expect(missing.json.error.message).toContain('/nonexistent.csv');
  });

  it('threat import reads an ACLED export and community GeoJSON, once each, and the running server loads them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tsaro-cli-threat-'));
    const acled = join(dir, 'acled.csv');
    writeFileSync(
      acled,
      [
        'event_id_cnty,event_date,year,event_type,sub_event_type,actor1,country,admin1,admin2,location,latitude,longitude,geo_precision,fatalities,notes',
        'NIG9001,15 October 2026,2026,Violence against civilians,Abduction/forced disappearance,Bandits,Nigeria,Kaduna,Chikun,Kujama,10.4167,7.6333,1,0,"Abducted, later released"',
        'NIG9002,16 October 2026,2026,Battles,Armed clash,Bandits,Nigeria,Kaduna,Chikun,Kujama,10.4167,7.6333,1,4,',
        'NIG9003,17 October 2026,2026,Strategic developments,Agreement,Government,Nigeria,Kaduna,Chikun,Kujama,10.4167,7.6333,1,0,',
      ].join('\n'),
    );
    expect((await tsaro('threat', 'import', '--format', 'acled', acled, '--json')).json).toEqual({ imported: 2, skipped: 1 });
    expect((await tsaro('threat', 'import', '--format', 'acled', acled, '--json')).json).toEqual({ imported: 0, skipped: 3 });

    const geojson = join(dir, 'reports.geojson');
    const feature = (id: string, confidence: number) => ({
      type: 'Feature',
      id,
      geometry: { type: 'Point', coordinates: [7.6333, 10.4167] },
      properties: { date: '2026-11-20', type: 'kidnapping', confidence },
    });
    writeFileSync(geojson, JSON.stringify({ type: 'FeatureCollection', features: [feature('kd-1', 0.9), feature('kd-2', 2)] }));
    expect((await tsaro('threat', 'import', '--format', 'community', geojson, '--json')).json).toEqual({ imported: 1, skipped: 1 });
    expect((await tsaro('threat', 'import', '--format', 'community', geojson, '--json')).json).toEqual({ imported: 0, skipped: 2 });

    const wrong = await tsaro('threat', 'import', '--format', 'acled', new URL('../../threat-data/ucdp/ucdp_ged_nigeria.csv', import.meta.url).pathname, '--json');
    expect(wrong.code).toBe(1);
    expect(wrong.json.error.message).toContain('missing columns event_id_cnty');

    // The server is another process: it picks the imports up by their revision.
    await server.running.refreshThreatIndex();
    const api = (await server.createOrganization()).live;
    const score = await api.get('/safety/score?latitude=10.4167&longitude=7.6333');
    expect(score.body.breakdown).toMatchObject({ total_incidents: 3, recent_incidents_7d: 1, recent_incidents_30d: 1 });
  });

  it.each([
    [['org', 'create', '--name', 'X', '--prefix', 'abc', '--json'], 'prefix'],
    [['org', 'update', 'org_missing', '--plan', 'growth', '--json'], 'not found'],
    [['key', 'create', '--org', 'org_missing', '--env', 'live', '--scopes', 'admin', '--json'], 'not found'],
    [['org', 'create', '--name', 'X', '--plan', 'gold', '--json'], 'gold'],
  ])('a bad command %j answers one JSON error object and a non-zero exit', async (args, text) => {
    const result = await tsaro(...args);
    expect(result.code).not.toBe(0);
    expect(result.json.error.message).toContain(text);
    expect(result.stdout.trim().split('\n')).toHaveLength(1);
    // The error is said once, in the JSON: no usage text beside it.
    expect(result.stderr).toBe('');
  });

  it('rejects an unknown scope naming it', async () => {
    const { json: org } = await tsaro('org', 'create', '--name', 'Scope Test', '--json');
    const result = await spawned('key', 'create', '--org', org.organization.organization_id, '--env', 'live', '--scopes', 'incidents:read,root', '--json');
    expect(result.code).toBe(1);
    expect(result.stdout.trim().split('\n')).toHaveLength(1);
    expect(result.json.error.message).toContain('root');
  });
});
