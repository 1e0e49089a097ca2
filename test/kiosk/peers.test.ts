import { afterEach, describe, expect, it } from 'vitest';
import type { KioskCore } from '../../electron/core/core.ts';
import { openSecureChannel, type OwnIdentity } from '../../electron/core/peers/channel.ts';
import { factsAfter } from '../../electron/core/peers/store.ts';
import { readIdentity } from '../../electron/core/identity/store.ts';
import { readSite } from '../../electron/core/caches/site.ts';
import { connect } from 'node:net';
import { execFileSync, spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { generateKeyPairSync } from 'node:crypto';
import { rawPublicKeyOf, signKioskCertificate } from '../../shared/node/kiosk-certificate.ts';
import { createCode, type Link, serverLogs, startGate, type Gate } from './support/gate.ts';
import { PeerWire } from './support/peer-wire.ts';
import { startChildKiosk, type ChildKiosk } from './support/child-kiosk.ts';
import { freePort } from '../support/ports.ts';

/**
 * The gates of a site talk to each other (issue #49): real kiosk cores against the real server,
 * each listening on its own KIOSK_PEER_PORT on loopback and dialling the others (KIOSK_PEERS)
 * through a relay per pair, so a test can cut the LAN between two gates. Three gates of one
 * estate and one of another; the server stopped (or out of reach) while they decide. Waits poll,
 * up to 10 s: the "within 2 s" is measured by bench/peers.ts (p99 6 ms quiet, 59 ms
 * loaded), not by a test's limit, which the whole suite's load on two cores once passed.
 */
let gate: Gate;
let wires: PeerWire[] = [];
let serverStopped = false;

afterEach(async () => {
  for (const wire of wires) await wire.stop();
  wires = [];
  await gate.stop();
});

async function startSite() {
  gate = await startGate();
  serverStopped = false;
  const stopServer = gate.server.stop.bind(gate.server);
  gate.server.stop = async () => {
    if (serverStopped) return;
    serverStopped = true;
    await stopServer();
  };
  const home = (await gate.owner.get('/sites')).body.results[0].site_id as string;
  const banana = (await gate.owner.post('/sites', { name: 'Banana Island', entry_points: ['Gate B'] })).body.site.site_id as string;
  return { home, banana };
}

interface PeerKiosk {
  core: KioskCore;
  link: Link;
  log: string[];
  port: number;
}

/**
 * Kiosks at the named gates, each dialling every other through its own relay (`wire(i, j)`: the
 * LAN from kiosk i to kiosk j), started, certified, placed at their sites and synced.
 */
async function startKiosks(gates: Array<{ entryPoint: string; siteId: string }>): Promise<{ kiosks: PeerKiosk[]; wire: (from: number, to: number) => PeerWire }> {
  const ports = await Promise.all(gates.map(() => freePort()));
  const pairs = new Map<string, PeerWire>();
  for (let i = 0; i < gates.length; i++) {
    for (let j = 0; j < gates.length; j++) {
      if (i === j) continue;
      const wire = await new PeerWire(() => ports[j]!).start();
      wires.push(wire);
      pairs.set(`${i}>${j}`, wire);
    }
  }
  // A gate that asks a pass's owner and hears nothing within askTimeoutMs decides alone (the
  // excess is reconciled later). At 1 s, the whole suite's load on two cores once made the owner's
  // answer over a 200 ms LAN late, and a two-use pass was let in three times: these tests are of
  // who decides, so the owner is given time to answer.
  const kiosks = gates.map((at, i): PeerKiosk => {
    const log: string[] = [];
    const { core, link } = gate.kiosk({
      entryPoint: at.entryPoint,
      timings: { heartbeatMs: 1_000, panicRetryMs: 200 },
      logEvent: (message) => log.push(message),
      peers: { port: ports[i]!, addresses: gates.flatMap((_, j) => (j === i ? [] : [pairs.get(`${i}>${j}`)!.address])), redialMs: 100, askTimeoutMs: 5_000 },
    });
    core.start();
    return { core, link, log, port: ports[i]! };
  });
  for (const [i, kiosk] of kiosks.entries()) {
    await expect.poll(() => readIdentity(kiosk.core.db)?.certificate ?? null, { timeout: 15_000 }).not.toBeNull();
    await expect.poll(() => readSite(kiosk.core)?.site_id, { timeout: 15_000 }).toBe(gates[i]!.siteId);
  }
  return { kiosks, wire: (from, to) => pairs.get(`${from}>${to}`)! };
}

const typeCode = (kiosk: PeerKiosk, code: string) => kiosk.core.call('scan', { text: code, method: 'keypad' });
const insideAt = async (kiosk: PeerKiosk) => (await kiosk.core.call('onPremises', {})).visitors.map((visit) => visit.visitorName);
const syncAll = async (kiosks: PeerKiosk[]) => {
  for (const kiosk of kiosks) await kiosk.core.call('syncNow', {});
};
const usesHeard = (kiosk: PeerKiosk, codeId: string) => factsAfter(kiosk.core.db, 0, 1000).filter(({ fact }) => fact.kind === 'use' && fact.codeId === codeId).length;

/** Every gate of the site hears every other, and their first exchanges are done. */
const allMet = async (kiosks: PeerKiosk[]) => {
  for (const kiosk of kiosks) await expect.poll(() => kiosk.core.peers.members().length, { timeout: 15_000 }).toBe(kiosks.length);
};

describe('the gates of a site, with the server stopped', () => {
  it('share uses, visitors and check-outs; the other estate learns nothing; a peer without a valid certificate is ignored', async () => {
    const { home, banana } = await startSite();
    const single = await createCode(gate.owner, { visitor_name: 'Musa Bello', max_uses: 1, site_id: home });
    const triple = await createCode(gate.owner, { visitor_name: 'Ada Obi', visitor_phone: '+2348030000002', max_uses: 3, site_id: home });
    const twice = await createCode(gate.owner, { visitor_name: 'Chidi Okeke', visitor_phone: '+2348030000004', max_uses: 2, site_id: home });
    const { kiosks } = await startKiosks([
      { entryPoint: 'Main gate', siteId: home },
      { entryPoint: 'Back gate', siteId: home },
      { entryPoint: 'Side gate', siteId: home },
      { entryPoint: 'Gate B', siteId: banana },
    ]);
    const [main, back, side, other] = kiosks as [PeerKiosk, PeerKiosk, PeerKiosk, PeerKiosk];
    await syncAll(kiosks);
    await allMet([main, back, side]);
    // The other estate's kiosk was refused by all three, and refused them.
    expect(other.core.peers.members()).toEqual([other.core.kioskId]);
    await expect.poll(() => main.log.some((line) => /was ignored: its certificate does not hold here \(unknown_authority\)/.test(line))).toBe(true);
    await expect.poll(() => other.log.some((line) => /was ignored: its certificate does not hold here \(unknown_authority\)/.test(line))).toBe(true);

    await gate.server.stop();

    // A single-use pass let in at the main gate is refused at the back gate and the side gate.
    const first = await typeCode(main, single.code);
    expect(first).toMatchObject({ admitted: true, decidedBy: 'offline' });
    const usedAt = `Used at Main gate, ${new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(new Date(first.scannedAt))}.`;
    await expect.poll(() => factsAfter(side.core.db, 0, 1000).some(({ fact }) => fact.kind === 'use' && fact.codeId === single.code_id), { timeout: 10_000 }).toBe(true);
    for (const at of [back, side]) {
      const refused = await typeCode(at, single.code);
      expect(refused).toMatchObject({ admitted: false, decidedBy: 'offline', reason: 'used_up' });
      expect(refused.message).toBe(`Musa Bello: This code has already been used as many times as allowed. ${usedAt}`);
    }

    // A walk-in at the main gate is on the side gate's "On premises" (and the roll call's list).
    await main.core.call('walkIn', { visitorName: 'Bola Ade', visitorPhone: '+2348030000003' });
    await expect.poll(() => insideAt(side), { timeout: 10_000 }).toEqual(expect.arrayContaining(['Musa Bello', 'Bola Ade']));
    // Checked out at the back gate, though let in at the main gate: gone from every gate.
    const bola = (await back.core.call('onPremises', { search: 'Bola' })).visitors[0]!;
    expect(bola).toMatchObject({ entryPoint: 'Main gate', pendingSync: true });
    await back.core.call('checkout', { visitId: bola.visitId });
    for (const at of [main, side, back]) await expect.poll(() => insideAt(at), { timeout: 10_000 }).not.toContain('Bola Ade');

    // A pass of three uses, checked out between uses, admits exactly three times across the three gates.
    const admissions: string[] = [];
    for (const at of [main, back, side, main, back, side]) {
      gate.clock.advance(60_000);
      const decision = await typeCode(at, triple.code);
      if (decision.admitted) {
        admissions.push(decision.visitId!);
        // Every gate hears of the use (and the visit); then the visitor leaves.
        const uses = admissions.length;
        for (const peer of [main, back, side]) await expect.poll(() => usesHeard(peer, triple.code_id), { timeout: 10_000 }).toBe(uses);
        await at.core.call('checkout', { visitId: decision.visitId! });
        for (const peer of [main, back, side]) await expect.poll(() => insideAt(peer), { timeout: 10_000 }).not.toContain('Ada Obi');
      } else {
        expect(decision).toMatchObject({ reason: 'used_up' });
        expect(decision.message).toMatch(/Used at Side gate, \d\d:\d\d\.$/);
      }
    }
    expect(admissions).toHaveLength(3);

    // A pass of two uses (a photo of it shared) presented at the three gates at the same moment,
    // on a LAN slow enough that news of a use arrives after the others have decided: the pass's
    // owner among them decides each use, so two are let in, not three.
    gate.clock.advance(60_000);
    for (const wire of wires) wire.latencyMs = 200;
    const atOnce = await Promise.all([main, back, side].map((at) => typeCode(at, twice.code)));
    expect(atOnce.filter((decision) => decision.admitted)).toHaveLength(2);
    expect(atOnce.filter((decision) => !decision.admitted)).toMatchObject([{ reason: 'used_up' }]);
    for (const wire of wires) wire.latencyMs = 0;

    // The other estate's kiosk learnt nothing of any of it.
    expect(factsAfter(other.core.db, 0, 1000)).toEqual([]);
    expect(await insideAt(other)).toEqual([]);

    // A peer whose certificate no authority of this site signed (a forged one, naming the site) is ignored.
    const real = readIdentity(main.core.db)!;
    const forger = generateKeyPairSync('ed25519');
    const own = generateKeyPairSync('ed25519');
    const forged: OwnIdentity = {
      kioskId: 'kiosk_01JD7ZK3Q0C7W5N2Y8S4V6X9FF',
      privateKey: own.privateKey,
      certificate: signKioskCertificate(
        {
          v: 1,
          kid: real.authority_kid!,
          organization_id: gate.org.organizationId,
          environment: 'live',
          site_id: home,
          kiosk_id: 'kiosk_01JD7ZK3Q0C7W5N2Y8S4V6X9FF',
          public_key: rawPublicKeyOf(own.publicKey),
          issued_at: gate.clock.now().toISOString(),
          expires_at: new Date(gate.clock.now().getTime() + 3_600_000).toISOString(),
        },
        forger.privateKey,
      ),
    };
    const socket = connect({ host: '127.0.0.1', port: main.port });
    await new Promise((done) => socket.once('connect', done));
    // The intruder accepts anyone; the gate does not accept it.
    const channel = await openSecureChannel(socket, 'initiator', forged, (certificate) => ({ ok: true, claims: JSON.parse(Buffer.from(certificate.split('.')[0]!, 'base64url').toString()) }));
    const heard: unknown[] = [];
    channel.on('message', (message) => heard.push(message));
    channel.start();
    await expect.poll(() => channel.isOpen).toBe(false);
    expect(heard).toEqual([]);
    expect(main.log.some((line) => /was ignored: its certificate does not hold here \(bad_signature\)/.test(line))).toBe(true);
    expect(main.core.peers.members()).toHaveLength(3);
  }, 90_000);
});

describe('the gates of a site, apart and the server out of reach', () => {
  it('each admits alone; the excess use is reported once the server returns (console warning and event), by the gate that admitted it', async () => {
    const { home } = await startSite();
    const single = await createCode(gate.owner, { visitor_name: 'Musa Bello', max_uses: 1, site_id: home });
    const { kiosks, wire } = await startKiosks([
      { entryPoint: 'Main gate', siteId: home },
      { entryPoint: 'Back gate', siteId: home },
    ]);
    const [main, back] = kiosks as [PeerKiosk, PeerKiosk];
    await syncAll(kiosks);
    await allMet(kiosks);
    for (const kiosk of kiosks) kiosk.link.up = false;
    wire(0, 1).cut();
    wire(1, 0).cut();
    await expect.poll(() => main.core.peers.members()).toEqual([main.core.kioskId]);
    await expect.poll(() => back.core.peers.members()).toEqual([back.core.kioskId]);

    const atMain = await typeCode(main, single.code);
    gate.clock.advance(60_000);
    const atBack = await typeCode(back, single.code);
    expect(atMain).toMatchObject({ admitted: true, decidedBy: 'offline' });
    expect(atBack).toMatchObject({ admitted: true, decidedBy: 'offline' });

    // They meet again: both see the same excess; the back gate, which admitted it, says so.
    wire(0, 1).mend();
    wire(1, 0).mend();
    await allMet(kiosks);
    await expect.poll(() => back.log.some((line) => /one more than the pass allows/.test(line)), { timeout: 5_000 }).toBe(true);
    expect(main.log.some((line) => /one more than the pass allows/.test(line))).toBe(false);

    // The server returns: each gate replays only what it recorded; the later use is the excess.
    for (const kiosk of kiosks) kiosk.link.up = true;
    await syncAll([main, back]);
    await syncAll([main, back]);
    const logs = await serverLogs(gate.owner);
    expect(logs).toHaveLength(2);
    const excess = logs.filter((log) => log.admitted_offline);
    expect(excess).toHaveLength(1);
    expect(excess[0]!.admitted_offline).toMatchObject({ code: single.code, scanned_at: atBack.scannedAt, server_said: 'Maximum uses reached' });
    const events = (await gate.owner.get('/events?type=visitor.excess_use')).body.results as Array<{ data: { log_id: string } }>;
    expect(events.map((event) => event.data.log_id)).toEqual([excess[0]!.log_id]);
    // Sent once: the main gate replayed only its own scan.
    expect(main.link.writes().filter((line) => line.includes('/kiosk/replay') || line.includes('/access-codes/validate')).length).toBeGreaterThan(0);
    expect(logs.filter((log) => log.method === 'code')).toHaveLength(1);
  });
});

describe('an SOS when only one gate reaches the server', () => {
  it('the gate that reaches it carries the SOS of the gate that cannot: one incident, and the pressing gate shows it sent', async () => {
    const { home } = await startSite();
    const { kiosks } = await startKiosks([
      { entryPoint: 'Main gate', siteId: home },
      { entryPoint: 'Back gate', siteId: home },
    ]);
    const [main, back] = kiosks as [PeerKiosk, PeerKiosk];
    await allMet(kiosks);
    main.link.up = false;
    const writesBefore = main.link.writes().length;
    const pressed = await main.core.call('panicPress', { pressId: 'press-main-0001' });
    expect(pressed.delivery).not.toBe('sent');
    expect((await back.core.call('kioskStatus', {})).peers.gates).toEqual([{ kioskId: main.core.kioskId, ready: true }]);
    // The back gate carries it; the main gate hears that it went, and which incident it made.
    await expect.poll(async () => (await main.core.call('panicStatus', { pressId: 'press-main-0001' }))?.delivery, { timeout: 10_000 }).toBe('sent');
    const incidents = (await gate.owner.get('/incidents?limit=100')).body.results as Array<{ incident_id: string; subject: { metadata: { entry_point: string } } }>;
    expect(incidents).toHaveLength(1);
    expect(incidents[0]!.subject.metadata.entry_point).toBe('Main gate');
    expect((await main.core.call('panicStatus', { pressId: 'press-main-0001' }))?.incidentId).toBe(incidents[0]!.incident_id);
    expect(back.log.some((line) => line.includes(`carried the SOS pressed at Main gate`))).toBe(true);
    // Nothing left the main gate for the server meanwhile: the SOS went by the back gate.
    expect(main.link.writes()).toHaveLength(writesBefore);
    // The main gate's link returns: it does not raise a second incident.
    main.link.up = true;
    await main.core.call('syncNow', {});
    expect((await gate.owner.get('/incidents?limit=100')).body.results).toHaveLength(1);
  });
});

/** Whether this machine lets a test make a network namespace of its own (`unshare -rn`). */
function namespacesWork(): boolean {
  try {
    execFileSync('unshare', ['-rn', 'true'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
const NAMESPACES = namespacesWork();
if (!NAMESPACES) process.stdout.write('SKIPPED the mDNS discovery test: `unshare -rn` cannot make a network namespace on this machine\n');

describe('finding the gates of a site by mDNS', () => {
  // The machine's own loopback carries no multicast; a network namespace's can (ip route 224.0.0.0/4 dev lo).
  it.skipIf(!NAMESPACES)('two certified gates with no KIOSK_PEERS find each other in a network namespace, prove their site, and share a walk-in', async () => {
    const { home } = await startSite();
    // Certified and placed at their site by the server, as at set-up; then closed.
    const dirs: Array<{ dataDir: string; entryPoint: string }> = [];
    for (const entryPoint of ['Main gate', 'Back gate']) {
      const { core, dataDir } = gate.kiosk({ entryPoint, timings: { heartbeatMs: 1_000 } });
      core.start();
      await expect.poll(() => readIdentity(core.db)?.certificate ?? null, { timeout: 15_000 }).not.toBeNull();
      await expect.poll(() => readSite(core)?.site_id, { timeout: 15_000 }).toBe(home);
      await core.close();
      dirs.push({ dataDir, entryPoint });
    }
    const config = JSON.stringify({ serverUrl: gate.server.baseUrl, apiKey: gate.gateKey, gates: dirs, nowMs: gate.clock.now().getTime() });
    const script = 'ip link set lo up && ip link set lo multicast on && ip route add 224.0.0.0/4 dev lo && exec "$0" --import tsx test/kiosk/support/mdns-gates.ts "$1"';
    const run = spawnSync('unshare', ['-rn', 'sh', '-c', script, process.execPath, config], { cwd: resolve(import.meta.dirname, '../..'), encoding: 'utf8', timeout: 60_000 });
    const line = run.stdout.trim().split('\n').at(-1) ?? '';
    expect(line, run.stderr).toMatch(/^\{/);
    const result = JSON.parse(line) as { met: boolean; walkInSeen: boolean; logs: string[][] };
    expect(result, JSON.stringify(result.logs)).toMatchObject({ met: true, walkInSeen: true });
    expect(result.logs[0]!.some((message) => /found a gate at .* by mDNS/.test(message))).toBe(true);
  }, 90_000);
});

describe('set up as an operator does, from the environment', () => {
  it('two kiosk hosts given KIOSK_PEER_PORT and KIOSK_PEERS find each other once certified, and a walk-in at one is on the other', async () => {
    await startSite();
    const [portA, portB] = [await freePort(), await freePort()];
    const children: ChildKiosk[] = [];
    try {
      for (const [entryPoint, port, peer] of [['Main gate', portA, portB], ['Back gate', portB, portA]] as const) {
        children.push(
          await startChildKiosk({
            KIOSK_SERVER_URL: gate.server.baseUrl,
            KIOSK_API_KEY: gate.gateKey,
            KIOSK_ENTRY_POINT: entryPoint,
            KIOSK_LOCATION: '6.4281,3.4219',
            KIOSK_DATA_DIR: gate.dataDir(),
            KIOSK_HEARTBEAT_S: '5',
            KIOSK_PEER_PORT: String(port),
            KIOSK_PEERS: `127.0.0.1:${peer}`,
          }),
        );
      }
      const [main, back] = children as [ChildKiosk, ChildKiosk];
      for (const kiosk of children) await expect.poll(async () => (await kiosk.client.call('kioskStatus', {})).peers.gates.filter((peer) => peer.ready).length, { timeout: 30_000 }).toBe(1);
      await main.client.call('walkIn', { visitorName: 'Ngozi Eze', visitorPhone: '+2348030000010' });
      await expect.poll(async () => (await back.client.call('onPremises', {})).visitors.map((visit) => visit.visitorName), { timeout: 10_000 }).toContain('Ngozi Eze');
    } finally {
      for (const kiosk of children) await kiosk.stop();
    }
  }, 90_000);
});
