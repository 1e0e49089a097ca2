import { readFileSync } from 'node:fs';
import net from 'node:net';

/**
 * A loopback port nothing listens on, for a test to start something on later or to keep down
 * (connections to it are refused at once).
 *
 * It is taken below the kernel's ephemeral range (`ip_local_port_range`), where no `listen(0)` and
 * no outgoing connection of a test running beside this one can be handed it. A port from
 * `listen(0)` stays free only until the next process asks the kernel for one: a receiver of a
 * parallel test once got such a port, answered a "down" webhook receiver's deliveries, and failed
 * CI.
 */
export async function freePort(): Promise<number> {
  const low = ephemeralLow();
  for (let tries = 0; tries < 100; tries++) {
    const port = LOWEST + Math.floor(Math.random() * (low - LOWEST));
    if (await bindable(port)) return port;
  }
  throw new Error(`no free loopback port found between ${LOWEST} and ${low}`);
}

const LOWEST = 10_000;

function bindable(port: number): Promise<boolean> {
  return new Promise((done) => {
    const probe = net.createServer();
    probe.once('error', () => done(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => done(true)));
  });
}

function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (Number.isInteger(low) && low > LOWEST + 1_000) return low;
  } catch {
    // not Linux: below the IANA dynamic range, which starts at 49152
  }
  return 49_152;
}
