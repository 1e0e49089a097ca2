/**
 * Two gate kiosks, already certified (their data folders), started with mDNS discovery and no
 * KIOSK_PEERS, in whatever network this process is in (the test runs it in a network namespace
 * of its own, whose loopback carries multicast). Prints one JSON line: whether they found and
 * proved each other, and whether a walk-in at the first reached the second's "On premises".
 *
 *   node --import tsx test/kiosk/support/mdns-gates.ts <config JSON>
 */
import { createKioskCore, type KioskCore } from '../../../electron/core/core.ts';

interface Config {
  serverUrl: string;
  apiKey: string;
  gates: Array<{ dataDir: string; entryPoint: string }>;
  /** The test server's clock now (it certified the kiosks): the kiosks' clocks run from it. */
  nowMs: number;
}

const config = JSON.parse(process.argv[2]!) as Config;
const logs: string[][] = config.gates.map(() => []);
const offsetMs = config.nowMs - Date.now();
const clock = { now: () => new Date(Date.now() + offsetMs) };
const cores: KioskCore[] = config.gates.map((gate, i) =>
  createKioskCore({
    dataDir: gate.dataDir,
    serverUrl: config.serverUrl,
    apiKey: config.apiKey,
    entryPoint: gate.entryPoint,
    location: { latitude: 6.4281, longitude: 3.4219 },
    logEvent: (message) => logs[i]!.push(message),
    logError: () => undefined,
    clock,
    peers: { port: 0, addresses: [], discovery: true, redialMs: 100 },
  }),
);
const until = async (test: () => boolean | Promise<boolean>, ms: number) => {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await test()) return true;
    await new Promise((done) => setTimeout(done, 50));
  }
  return false;
};
for (const core of cores) core.start();
const met = await until(() => cores.every((core) => core.peers.members().length === cores.length), 20_000);
let walkInSeen = false;
if (met) {
  await cores[0]!.call('walkIn', { visitorName: 'Kemi Adeyemi', visitorPhone: '+2348030000009' });
  walkInSeen = await until(async () => (await cores[1]!.call('onPremises', {})).visitors.some((visit) => visit.visitorName === 'Kemi Adeyemi'), 5_000);
}
const result = { met, walkInSeen, members: cores.map((core) => core.peers.members().length), logs };
for (const core of cores) await core.close();
process.stdout.write(`${JSON.stringify(result)}\n`);
process.exit(0);
