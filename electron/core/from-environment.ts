import { parseLocation, settingsFromEnvironment } from './setup/settings.ts';
import type { KioskCoreOptions } from './core.ts';
import { DEFAULT_PEER_PORT, splitAddress, type PeerOptions } from './peers/peers.ts';

export const DEFAULT_KIOSK_PORT = 4300;

/**
 * The operator's interface (CONTRACT.md): KIOSK_SERVER_URL, KIOSK_API_KEY, KIOSK_ENTRY_POINT,
 * KIOSK_LOCATION (`lat,lng`) set the kiosk up (all four, or none for the first-run setup);
 * KIOSK_DATA_DIR holds its database; KIOSK_PORT is the browser host's port on 127.0.0.1.
 * Beside them, KIOSK_ONLINE_WAIT_MS: how long the guard waits for the server's answer before the
 * kiosk decides at the gate (default 600; raise it on a slow uplink); KIOSK_COVERAGE_CHECK_S: how
 * often the kiosk asks whether any on-duty responder covers the gate (default 180);
 * KIOSK_HEARTBEAT_S: how often it reports its queue and clock to the server (default 30).
 * KIOSK_PEER_PORT (default 4310, every interface) and KIOSK_PEERS (`host:port`, comma separated):
 * the gates of its site it talks to (issue #49); KIOSK_PEER_DISCOVERY=0 turns mDNS off.
 */
export function kioskOptionsFromEnvironment(env: Record<string, string | undefined>, defaultDataDir: string): KioskCoreOptions {
  const settings = settingsFromEnvironment(env);
  const onlineWaitMs = onlineWaitFromEnvironment(env);
  const coverageCheckMs = coverageCheckFromEnvironment(env);
  const heartbeatMs = heartbeatFromEnvironment(env);
  const timings = {
    ...(onlineWaitMs === undefined ? {} : { onlineDecisionTimeoutMs: onlineWaitMs }),
    ...(coverageCheckMs === undefined ? {} : { coverageCheckMs }),
    ...(heartbeatMs === undefined ? {} : { heartbeatMs }),
  };
  return {
    dataDir: env.KIOSK_DATA_DIR?.trim() || defaultDataDir,
    peers: peersFromEnvironment(env),
    ...(Object.keys(timings).length ? { timings } : {}),
    ...(settings
      ? {
          serverUrl: settings.serverUrl,
          apiKey: settings.apiKey,
          entryPoint: settings.entryPoint,
          location: parseLocation(`${settings.latitude},${settings.longitude}`)!,
          ...(settings.alarmPhones ? { alarmPhones: settings.alarmPhones } : {}),
        }
      : {}),
  };
}

export function kioskPortFromEnvironment(env: Record<string, string | undefined>): number {
  const text = env.KIOSK_PORT?.trim();
  if (!text) return DEFAULT_KIOSK_PORT;
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`KIOSK_PORT must be a TCP port, not "${text}"`);
  return port;
}

const ONLINE_WAIT_RANGE_MS = { min: 100, max: 30_000 } as const;

/** KIOSK_ONLINE_WAIT_MS, whole milliseconds from 100 to 30000; undefined: the default (600). */
export function onlineWaitFromEnvironment(env: Record<string, string | undefined>): number | undefined {
  const text = env.KIOSK_ONLINE_WAIT_MS?.trim();
  if (!text) return undefined;
  const ms = Number(text);
  const { min, max } = ONLINE_WAIT_RANGE_MS;
  if (!/^\d+$/.test(text) || ms < min || ms > max) throw new Error(`KIOSK_ONLINE_WAIT_MS must be whole milliseconds from ${min} to ${max}, not "${text}"`);
  return ms;
}

const COVERAGE_CHECK_RANGE_S = { min: 1, max: 3600 } as const;

/** KIOSK_COVERAGE_CHECK_S, whole seconds from 1 to 3600, in ms; undefined: the default (180 s). */
export function coverageCheckFromEnvironment(env: Record<string, string | undefined>): number | undefined {
  const text = env.KIOSK_COVERAGE_CHECK_S?.trim();
  if (!text) return undefined;
  const seconds = Number(text);
  const { min, max } = COVERAGE_CHECK_RANGE_S;
  if (!/^\d+$/.test(text) || seconds < min || seconds > max) throw new Error(`KIOSK_COVERAGE_CHECK_S must be whole seconds from ${min} to ${max}, not "${text}"`);
  return seconds * 1000;
}

const HEARTBEAT_RANGE_S = { min: 5, max: 3600 } as const;

/**
 * KIOSK_HEARTBEAT_S, whole seconds from 5 to 3600, in ms; undefined: the default (30 s). Keep it
 * well under the server's KIOSK_OFFLINE_AFTER_S (120 s), or a working kiosk is reported offline.
 */
export function heartbeatFromEnvironment(env: Record<string, string | undefined>): number | undefined {
  const text = env.KIOSK_HEARTBEAT_S?.trim();
  if (!text) return undefined;
  const seconds = Number(text);
  const { min, max } = HEARTBEAT_RANGE_S;
  if (!/^\d+$/.test(text) || seconds < min || seconds > max) throw new Error(`KIOSK_HEARTBEAT_S must be whole seconds from ${min} to ${max}, not "${text}"`);
  return seconds * 1000;
}

/** KIOSK_PEER_PORT (a TCP port, default 4310), KIOSK_PEERS (`host:port,host:port`, optional), KIOSK_PEER_DISCOVERY (mDNS, default 1). */
export function peersFromEnvironment(env: Record<string, string | undefined>): PeerOptions {
  const portText = env.KIOSK_PEER_PORT?.trim();
  const port = portText ? Number(portText) : DEFAULT_PEER_PORT;
  if (!Number.isInteger(port) || port < 0 || port > 65535 || (portText !== undefined && !/^\d+$/.test(portText))) throw new Error(`KIOSK_PEER_PORT must be a TCP port, not "${portText}"`);
  const addresses = (env.KIOSK_PEERS ?? '')
    .split(',')
    .map((address) => address.trim())
    .filter(Boolean);
  for (const address of addresses) {
    const [, peerPort] = splitAddress(address);
    if (peerPort < 1 || peerPort > 65535) throw new Error(`KIOSK_PEERS: "${address}" has no usable port`);
  }
  // mDNS finds the site's other gates on an ordinary LAN; KIOSK_PEERS is for where multicast is blocked.
  const discoveryText = env.KIOSK_PEER_DISCOVERY?.trim();
  if (discoveryText && discoveryText !== '0' && discoveryText !== '1') throw new Error(`KIOSK_PEER_DISCOVERY must be 1 (mDNS on) or 0 (off), not "${discoveryText}"`);
  return { port, addresses, discovery: discoveryText !== '0' };
}
