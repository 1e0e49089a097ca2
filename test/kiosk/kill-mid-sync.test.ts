import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KIOSK_DB_FILE } from '../../electron/core/database.ts';
import { REPLAY_BATCH } from '../../electron/core/outbox/replay-batch.ts';
import { ManualClock } from '../support/clock.ts';
import { startTestServer, type TestOrganization, type TestServer } from '../support/server.ts';
import { startChildKiosk, LinkProxy, type ChildKiosk } from './support/child-kiosk.ts';
import { createCode, GATE_A, GATE_SCOPES, serverLogs } from './support/gate.ts';

/** The kiosk child runs on the machine's clock; so does this server. */
class WallClock extends ManualClock {
  override now(): Date {
    return new Date();
  }
}

/** Three operations each (a walk-in, a scan, a checkout): enough for a second batch of 15. */
const VISITORS = Math.ceil((REPLAY_BATCH + 15) / 3);
let server: TestServer;
let org: TestOrganization;
let proxy: LinkProxy;
let dataDir: string;
const children: ChildKiosk[] = [];

beforeEach(async () => {
  server = await startTestServer({ clock: new WallClock() });
  org = await server.createOrganization({ name: 'Admiralty Gardens' });
  proxy = new LinkProxy(new URL(server.baseUrl).origin);
  await proxy.start();
  dataDir = mkdtempSync(join(tmpdir(), 'tsaro-kiosk-kill-'));
});
afterEach(async () => {
  for (const child of children) await child.stop();
  await proxy.stop();
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('a kiosk killed mid-sync', () => {
  it('killed with SIGKILL after the server applied a batch but before the kiosk heard, and restarted: every operation is applied exactly once', { timeout: 90_000 }, async () => {
    const gateKey = (await org.keyWith(GATE_SCOPES)).key!;
    const hourAgo = new Date(Date.now() - 3600_000).toISOString();
    const codes = [];
    for (let i = 0; i < VISITORS; i++) codes.push(await createCode(org.live, { visitor_name: `Code Visitor ${i}`, valid_from: hourAgo }));
    const env = (serverUrl: string) => ({
      KIOSK_SERVER_URL: serverUrl,
      KIOSK_API_KEY: gateKey,
      KIOSK_ENTRY_POINT: GATE_A.entryPoint,
      KIOSK_LOCATION: `${GATE_A.location.latitude},${GATE_A.location.longitude}`,
      KIOSK_DATA_DIR: dataDir,
    });

    const first = await startChildKiosk(env(`${proxy.url}/v1/external`));
    children.push(first);
    expect(await first.client.call('syncNow', {})).toMatchObject({ online: true, error: null });
    proxy.down = true;
    for (let i = 0; i < VISITORS; i++) {
      const walkIn = await first.client.call('walkIn', { visitorName: `Walk-in ${i}`, visitorPhone: `+23480300001${String(i).padStart(2, '0')}` });
      const scanned = await first.client.call('scan', { text: i % 2 ? codes[i]!.qr_payload : codes[i]!.code, method: 'camera' });
      expect(scanned).toMatchObject({ admitted: true, decidedBy: 'offline' });
      await first.client.call('checkout', { visitId: walkIn.visit.visitId });
    }
    const queued = VISITORS * 3;
    expect((await first.client.call('kioskStatus', {})).pendingOperations).toBe(queued);

    // The link returns; the server applies the second batch, and the kiosk dies before hearing.
    proxy.holdAnswerOf = 2;
    proxy.down = false;
    void first.client.call('syncNow', {}).catch(() => undefined);
    await proxy.held;
    const outboxStates = () => {
      const file = new Database(join(dataDir, KIOSK_DB_FILE), { readonly: true });
      try {
        return file.prepare('SELECT state, count(*) AS n FROM outbox GROUP BY state ORDER BY state').all();
      } finally {
        file.close();
      }
    };
    // Two batches are in flight at once: their answers can leave the server together (one group
    // commit), so let the kiosk settle the first before the kill.
    await expect.poll(async () => (await first.client.call('kioskStatus', {})).pendingOperations, { timeout: 10_000 }).toBe(queued - REPLAY_BATCH);
    await first.kill();

    // What the dead kiosk's file says: the first batch settled, the second still pending though the server has it.
    const states = outboxStates();
    expect(states).toEqual([
      { state: 'done', n: REPLAY_BATCH },
      { state: 'pending', n: queued - REPLAY_BATCH },
    ]);
    expect(await proxy.held).toBe('POST /v1/external/kiosk/replay');

    const second = await startChildKiosk(env(server.baseUrl));
    children.push(second);
    expect(await second.client.call('syncNow', {})).toMatchObject({ online: true, error: null, pendingOperations: 0, refused: 0 });
    expect(await second.client.call('kioskStatus', {})).toMatchObject({ attentionCount: 0, pendingOperations: 0 });

    const logs = await serverLogs(org.live);
    expect(logs).toHaveLength(VISITORS * 2);
    expect(logs.filter((log) => log.method === 'walk_in' && log.status === 'checked_out')).toHaveLength(VISITORS);
    expect(logs.filter((log) => log.method === 'code' && log.status === 'checked_in')).toHaveLength(VISITORS);
    expect(new Set(logs.map((log) => log.visitor_name)).size).toBe(VISITORS * 2);
    for (const code of codes) {
      expect((await org.live.get(`/access-codes/${code.code_id}`)).body.access_code.use_count).toBe(1);
    }
  });
});
