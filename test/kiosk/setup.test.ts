import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createKioskCore } from '../../electron/core/core.ts';
import { KIOSK_DB_FILE } from '../../electron/core/database.ts';
import type { SecretStore } from '../../electron/core/setup/settings.ts';
import { createCode, GATE_A, GATE_SCOPES, serverLogs, startGate, type Gate } from './support/gate.ts';

let gate: Gate;
beforeEach(async () => {
  gate = await startGate();
});
afterEach(async () => {
  await gate.stop();
});

/** Stands in for Electron's safeStorage: reversible, and never the plain text. */
const sealed: SecretStore = {
  kind: 'test-seal',
  seal: (plain) => Buffer.from(plain).reverse().toString('base64'),
  open: (text) => Buffer.from(text, 'base64').reverse().toString(),
};

function setupInput(apiKey: string, serverUrl = gate.server.baseUrl) {
  return { serverUrl, apiKey, entryPoint: 'Gate A', latitude: GATE_A.location.latitude, longitude: GATE_A.location.longitude };
}

function failed(result: { checks: Array<{ name: string; ok: boolean; message: string }> }) {
  return result.checks.filter((check) => !check.ok).map((check) => [check.name, check.message]);
}

describe('first-run setup', () => {
  it('checks the server URL, the key, its scopes and that it is not an admin key before saving', async () => {
    const dataDir = gate.dataDir();
    const core = createKioskCore({ dataDir, clock: gate.clock, secretStore: sealed });
    expect(await core.call('setupStatus', {})).toMatchObject({ configured: false, source: null });
    await expect(core.call('scan', { text: 'ADMI-2345', method: 'keypad' })).rejects.toMatchObject({ code: 412 });
    await expect(core.call('configure', { ...setupInput(gate.gateKey), latitude: 91 })).rejects.toMatchObject({ code: 400, message: expect.stringMatching(/^latitude/) });

    const unreachable = await core.call('configure', setupInput(gate.gateKey, 'http://127.0.0.1:9/v1/external'));
    expect(unreachable.saved).toBe(false);
    expect(failed(unreachable)).toEqual([['reachable', expect.stringContaining('127.0.0.1:9')]]);

    const unknownKey = await core.call('configure', setupInput(`svc_live_${'x'.repeat(40)}`));
    expect(failed(unknownKey)).toEqual([['key_valid', expect.any(String)]]);

    const narrow = (await gate.org.keyWith(['access_codes:validate', 'access_codes:write', 'logs:read', 'incidents:read'])).key!;
    const missing = await core.call('configure', setupInput(narrow));
    expect(missing.saved).toBe(false);
    expect(failed(missing)).toEqual([['scopes', expect.stringContaining('incidents:write')]]);

    const owner = await core.call('configure', setupInput(gate.org.keys.live));
    expect(owner.saved).toBe(false);
    expect(failed(owner)).toEqual([['not_admin', expect.stringContaining('admin')]]);
    expect((await core.call('setupStatus', {})).configured).toBe(false);

    const good = await core.call('configure', setupInput(gate.gateKey));
    expect(good.saved).toBe(true);
    expect(good.setup).toMatchObject({ configured: true, source: 'setup', entryPoint: 'Gate A', environment: 'live', apiKeyHint: `svc_live_…${gate.gateKey.slice(-4)}` });
    expect(JSON.stringify(good)).not.toContain(gate.gateKey);
    await core.close();

    // The key is kept sealed in the kiosk's file, and the setup survives a restart.
    const file = new Database(join(dataDir, KIOSK_DB_FILE), { readonly: true });
    const stored = (file.prepare(`SELECT value FROM settings WHERE key = 'setup'`).get() as { value: string }).value;
    file.close();
    expect(stored).not.toContain(gate.gateKey);
    const code = await createCode(gate.owner);
    const restarted = createKioskCore({ dataDir, clock: gate.clock, secretStore: sealed });
    expect(await restarted.call('setupStatus', {})).toMatchObject({ configured: true, source: 'setup' });
    expect(await restarted.call('scan', { text: code.code, method: 'keypad' })).toMatchObject({ admitted: true, decidedBy: 'server' });
    await restarted.close();
  });

  it('leaves a kiosk set up by its environment to its environment', async () => {
    const { core } = gate.kiosk();
    expect(await core.call('setupStatus', {})).toMatchObject({ configured: true, source: 'environment' });
    await expect(core.call('configure', setupInput(gate.gateKey))).rejects.toMatchObject({ code: 409 });
  });
});

describe('a kiosk given an admin key by KIOSK_API_KEY', () => {
  it('refuses it as the setup screen does: says why, logs it, and sends nothing but an SOS with it', async () => {
    const events: string[] = [];
    const { core } = gate.kiosk({ apiKey: gate.org.keys.live, logEvent: (message) => events.push(message) });
    // The loop's first run, at start, finds out.
    expect((await core.call('syncNow', {})).error).toContain('admin');
    await core.call('walkIn', { visitorName: 'Ngozi Eze', visitorPhone: '+2348030000002' });
    const report = await core.call('syncNow', {});
    expect(report).toMatchObject({ pendingOperations: 1, error: expect.stringContaining('admin') });
    expect((await core.call('kioskStatus', {})).problem).toContain('KIOSK_API_KEY');
    expect(events.filter((line) => line.includes('admin'))).toHaveLength(1);
    expect(await serverLogs(gate.owner)).toEqual([]);
    const code = await createCode(gate.owner);
    expect(await core.call('scan', { text: code.code, method: 'keypad' })).toMatchObject({ decidedBy: 'offline' });
    expect((await core.call('panicPress', { pressId: 'press-admin-key' })).delivery).toBe('sent');
  });
});

describe('setup hints', () => {
  it('a bare http://host:port is told to add /v1/external', async () => {
    const core = createKioskCore({ dataDir: gate.dataDir(), clock: gate.clock, secretStore: sealed });
    const bare = new URL(gate.server.baseUrl).origin;
    const result = await core.call('configure', setupInput(gate.gateKey, bare));
    expect(failed(result)).toEqual([['reachable', expect.stringContaining(`try ${bare}/v1/external`)]]);
    await core.close();
  });
});

describe('a kiosk pointed by KIOSK_* at another server or key', () => {
  it('forgets the old organization\'s codes, pass keys and feed cursor, and refuses to start while operations wait', async () => {
    const codeA = await createCode(gate.owner, { visitor_name: 'A Visitor' });
    const first = gate.kiosk();
    await first.core.call('syncNow', {});
    const sos = await first.core.call('panicPress', { pressId: 'press-0900-aaaa' });
    expect(sos.delivery).toBe('sent');
    await first.core.close();

    const orgB = await gate.server.createOrganization({ name: 'Other Estate' });
    const keyB = (await orgB.keyWith(GATE_SCOPES)).key!;
    const codeB = await createCode(orgB.live, { visitor_name: 'B Visitor' });
    const second = gate.kiosk({ dataDir: first.dataDir, apiKey: keyB });
    // The old organization's SOS is not followed with the new key, nor joined by a new press.
    expect((await second.core.call('kioskStatus', {})).activePanic).toBeNull();
    expect(await second.core.call('syncNow', {})).toMatchObject({ error: null });
    second.link.up = false;
    expect(await second.core.call('scan', { text: codeA.code, method: 'keypad' })).toMatchObject({ admitted: false, decidedBy: 'offline', reason: 'not_found' });
    expect(await second.core.call('scan', { text: codeB.code, method: 'keypad' })).toMatchObject({ admitted: true, decidedBy: 'offline' });
    await second.core.close();

    // That admission waits to reach org B: org A's key must not replay it.
    expect(() => gate.kiosk({ dataDir: first.dataDir })).toThrow(/another API key.*waiting/);
    // The folder was not left locked by the refusal: the right settings still start it.
    const third = gate.kiosk({ dataDir: first.dataDir, apiKey: keyB });
    expect(await third.core.call('syncNow', {})).toMatchObject({ error: null, pendingOperations: 0 });
  });
});
