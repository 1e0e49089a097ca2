/**
 * Section `peers`: the gates of a site deciding together with the server away (issue #49). Real
 * kiosk cores in this process, each on its own SQLite file (WAL, synchronous FULL) and its own
 * peer port on loopback, talking over the real peer channel (handshake, AES-256-GCM frames). No
 * server: each kiosk is given what its server would have (a certificate from a site authority made
 * here, its site, BENCH_PEER_CODES single-use codes in its cache), and its link is down.
 *
 *   1. A peer's decision time: BENCH_PEER_SCANS (default 600, after 60 discarded) scans of distinct
 *      codes, each at a gate picked in turn, through the handler map (`core.call('scan')`): the
 *      offline verdict, the question to the pass's owner when it is another gate (a round trip
 *      over the channel) or the owner's own decision, and the durable write. Against the same
 *      scans at a kiosk with no peers (the decision alone), the ratio.
 *   2. The time for a use to reach every peer: from the scan's answer at one gate until every
 *      other gate holds the use (polled on each event-loop turn; the loop is shared, so this is an
 *      upper bound on the LAN's part).
 *
 * Environment: BENCH_PEER_GATES (3), BENCH_PEER_CODES (2,000), BENCH_PEER_SCANS (600).
 * Run alone: `node --import tsx bench/peers.ts` (or `BENCH_ONLY=peers npm run bench`).
 */
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createKioskCore, type KioskCore } from '../electron/core/core.ts';
import { applyFeedPage } from '../electron/core/caches/codes.ts';
import { rememberSite } from '../electron/core/caches/site.ts';
import { insertKeyPair, saveCertificate } from '../electron/core/identity/store.ts';
import { unsettledUsesOf } from '../electron/core/peers/store.ts';
import { ownerOf } from '../electron/core/peers/shared-uses.ts';
import { rawPublicKeyOf, signKioskCertificate } from '../shared/node/kiosk-certificate.ts';
import type { AccessCode } from '../shared/schemas/access.ts';
import { runCleanups } from './lib/cleanup.ts';
import { formatSection } from './lib/report.ts';
import { intFromEnv } from './lib/settings.ts';
import { percentile, summarize } from './lib/stats.ts';
import type { BenchSection, SectionContext, SectionResult } from './lib/section.ts';
import { createServer } from 'node:net';

const ORG = 'org_01JD7ZK3Q0C7W5N2Y8S4V6X9AB';
const SITE = 'site_01JD7ZK3Q0C7W5N2Y8S4V6X9AB';
const WARMUP = 60;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, done));
  const port = (server.address() as { port: number }).port;
  await new Promise((done) => server.close(done));
  return port;
}

function codesOf(count: number, now: number): AccessCode[] {
  const at = new Date(now).toISOString();
  return Array.from({ length: count }, (_, i) => {
    const code = `PEER-${String(i).padStart(6, '0')}`;
    return {
      code_id: `code_bench_${i}`,
      code,
      visitor_name: `Visitor ${i}`,
      visitor_phone: '+2348030000000',
      visitor_email: null,
      purpose: null,
      entry_point: null,
      host_user_id: null,
      status: 'active',
      valid_from: new Date(now - 3_600_000).toISOString(),
      valid_until: new Date(now + 86_400_000).toISOString(),
      max_uses: 1,
      use_count: 0,
      uses_remaining: 1,
      qr_payload: '',
      created_at: at,
      updated_at: at,
      revoked_at: null,
      revoke_reason: null,
      site_id: SITE,
      entry_point_id: null,
      host_phone: null,
    };
  });
}

/** A kiosk as its server would have left it: certified by `authority`, placed at the site, its cache full; its link down. */
function gateKiosk(name: string, dir: string, authority: { kid: string; key: KeyObject; publicKey: string }, codes: AccessCode[], peers?: { port: number; addresses: string[] }): KioskCore {
  const core = createKioskCore({
    dataDir: dir,
    serverUrl: 'http://127.0.0.1:9/v1/external',
    apiKey: 'svc_live_bench',
    entryPoint: name,
    location: { latitude: 6.4281, longitude: 3.4219 },
    fetch: async () => {
      throw new TypeError('fetch failed', { cause: { code: 'ENETUNREACH' } });
    },
    logEvent: () => undefined,
    ...(peers ? { peers: { ...peers, redialMs: 100 } } : {}),
  });
  const now = Date.now();
  const at = new Date(now).toISOString();
  const own = generateKeyPairSync('ed25519');
  insertKeyPair(core.db, rawPublicKeyOf(own.publicKey), own.privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64'), at);
  const claims = {
    v: 1 as const,
    kid: authority.kid,
    organization_id: ORG,
    environment: 'live' as const,
    site_id: SITE,
    kiosk_id: core.kioskId,
    public_key: rawPublicKeyOf(own.publicKey),
    issued_at: at,
    expires_at: new Date(now + 86_400_000).toISOString(),
  };
  saveCertificate(core.db, { certificate: signKioskCertificate(claims, authority.key), expires_at: claims.expires_at, site_id: SITE, authority_kid: authority.kid, authority_public_key: authority.publicKey }, at);
  rememberSite(core, { site_id: SITE, name: 'Bench Gardens', call_list: [] });
  applyFeedPage(core.db, codes, 0, codes.length, at);
  return core;
}

export async function runPeersBench(context: SectionContext): Promise<SectionResult> {
  const gates = intFromEnv('BENCH_PEER_GATES', 3, 2);
  const codeCount = intFromEnv('BENCH_PEER_CODES', 2_000, 100);
  const scans = intFromEnv('BENCH_PEER_SCANS', 600, 10);
  if (codeCount < 2 * (scans + WARMUP)) throw new Error('BENCH_PEER_CODES must be at least twice BENCH_PEER_SCANS + 60');
  const dirs: string[] = [];
  const cores: KioskCore[] = [];
  try {
    const authorityKeys = generateKeyPairSync('ed25519');
    const authority = { kid: 'ka_BENCHBEN', key: authorityKeys.privateKey, publicKey: rawPublicKeyOf(authorityKeys.publicKey) };
    const codes = codesOf(codeCount, Date.now());
    const ports = await Promise.all(Array.from({ length: gates }, () => freePort()));
    for (let i = 0; i < gates; i++) {
      const dir = mkdtempSync(join(tmpdir(), 'tsaro-bench-peer-'));
      dirs.push(dir);
      cores.push(gateKiosk(`Gate ${i + 1}`, dir, authority, codes, { port: ports[i]!, addresses: ports.filter((_, j) => j !== i).map((port) => `127.0.0.1:${port}`) }));
    }
    const aloneDir = mkdtempSync(join(tmpdir(), 'tsaro-bench-peer-'));
    dirs.push(aloneDir);
    const alone = gateKiosk('Alone', aloneDir, authority, codes);
    for (const core of cores) core.start();
    const met = Date.now();
    while (cores.some((core) => core.peers.members().length < gates)) {
      if (Date.now() - met > 20_000) throw new Error('the bench gates did not meet within 20 s');
      await new Promise((done) => setTimeout(done, 20));
    }
    context.log(`peers: ${gates} gates met; ${scans} scans of ${codeCount} cached codes`);

    const members = cores[0]!.peers.members();
    const decision = { here: [] as number[], asked: [] as number[] };
    const reach: number[] = [];
    for (let i = 0; i < scans + WARMUP; i++) {
      const at = i % gates;
      const code = codes[i]!;
      const started = performance.now();
      const answer = await cores[at]!.call('scan', { text: code.code, method: 'keypad' });
      const decided = performance.now();
      if (!answer.admitted) throw new Error(`scan ${i} refused: ${answer.message}`);
      // Until every other gate holds the use.
      const others = cores.filter((_, j) => j !== at);
      while (others.some((core) => unsettledUsesOf(core.db, code.code_id).length === 0)) await new Promise((done) => setImmediate(done));
      const reached = performance.now();
      if (i < WARMUP) continue;
      (ownerOf(code.code_id, members) === cores[at]!.kioskId ? decision.here : decision.asked).push(decided - started);
      reach.push(reached - decided);
    }
    // The same scans at a kiosk that hears nobody: the decision and its write alone.
    const baseline: number[] = [];
    for (let i = 0; i < scans + WARMUP; i++) {
      const code = codes[scans + WARMUP + i]!;
      const started = performance.now();
      await alone.call('scan', { text: code.code, method: 'keypad' });
      if (i >= WARMUP) baseline.push(performance.now() - started);
    }
    await alone.close();
    // A second scan of a used code at another gate: refused, from the ledger ("Used at Gate 1").
    const refusedAt = await cores[1 % gates]!.call('scan', { text: codes[WARMUP]!.code, method: 'keypad' });

    const all = [...decision.here, ...decision.asked];
    const stats = (values: number[]) => ({ ...summarize(values), p95: percentile([...values].sort((a, b) => a - b), 95) });
    const s = { all: stats(all), here: stats(decision.here), asked: stats(decision.asked), reach: stats(reach), alone: stats(baseline) };
    const row = (label: string, x: ReturnType<typeof stats>, n: number) => [label, String(n), x.p50.toFixed(2), x.p95.toFixed(2), x.p99.toFixed(2), x.max.toFixed(2)];
    return {
      name: 'peers',
      rows: [],
      aims: [
        { aim: 'a peer decision p99 < 50 ms', engine: 'sqlite', actual: `${s.all.p99.toFixed(1)} ms`, met: s.all.p99 < 50 },
        { aim: 'a use reaches every peer p99 < 2,000 ms', engine: 'sqlite', actual: `${s.reach.p99.toFixed(1)} ms`, met: s.reach.p99 < 2_000 },
      ],
      notes: [
        `${gates} gates of one site on loopback, the server away; ${all.length} single-use codes admitted once each (${decision.asked.length} decided by asking another gate, ${decision.here.length} by the gate itself as the pass's owner).`,
        `A peer decision is ${(s.all.p99 / s.alone.p99).toFixed(2)}x a lone kiosk's at p99 (${(s.all.p50 / s.alone.p50).toFixed(2)}x at p50): the owner's round trip and the fact kept beside the decision.`,
        `A second scan of a used code at another gate: ${refusedAt.admitted ? 'ADMITTED (wrong)' : `refused, "${refusedAt.message}"`}.`,
        'One process, one event loop for every gate: a reach time includes the other gates waiting their turn; on separate machines it is the LAN and one decrypt.',
      ],
      tables: [
        {
          title: 'The gates of a site, offline: ms',
          header: ['measure', 'n', 'p50', 'p95', 'p99', 'max'],
          rows: [
            row('peer decision (scan -> answer), all', s.all, all.length),
            row('  owner is another gate (asked)', s.asked, decision.asked.length),
            row('  owner is this gate', s.here, decision.here.length),
            row('lone kiosk decision (no peers)', s.alone, baseline.length),
            row('use reaches every other gate', s.reach, reach.length),
          ],
        },
      ],
      data: { gates, codes: codeCount, decisionMs: decision, reachMs: reach, aloneMs: baseline },
    };
  } finally {
    for (const core of cores) await core.close().catch(() => undefined);
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
}

export const peersSection: BenchSection = {
  name: 'peers',
  description: 'The gates of a site offline: a peer decision (p99) and the time for a use to reach every peer',
  run: runPeersBench,
};

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const log = (line: string) => process.stderr.write(`${line}\n`);
  runPeersBench({ load: { durationS: 0, warmupS: 0, connections: 1 }, log })
    .then((result) => process.stdout.write(`${formatSection(result)}\n`))
    .catch(async (error: unknown) => {
      log(`peers failed: ${(error as Error).stack ?? String(error)}`);
      await runCleanups(log);
      process.exitCode = 1;
    });
}
