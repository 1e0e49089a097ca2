import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/**
 * Where a webhook may be sent. Live endpoints: https to public addresses only, never private,
 * loopback, link-local (cloud metadata at 169.254.169.254), multicast or reserved ranges.
 * Sandbox endpoints may also be http, and loopback (a partner testing on their own machine),
 * but never the other private or link-local ranges. Checked at registration and again for
 * every connection (the resolved address, so DNS rebinding can not redirect a delivery).
 */
const ALWAYS_REFUSED = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  ALWAYS_REFUSED.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['2001:db8::', 32],
  ['64:ff9b::', 96],
  // Older spellings of IPv4 inside IPv6 (IPv4-compatible, IPv4-translated, 6to4) can reach
  // any IPv4 address, loopback and private ones included: refused outright.
  ['::', 96],
  ['::ffff:0:0:0', 96],
  ['2002::', 16],
  ['64:ff9b:1::', 48],
  ['fec0::', 10],
] as const) {
  ALWAYS_REFUSED.addSubnet(network, prefix, 'ipv6');
}
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

function mappedIpv4(address: string): string | undefined {
  const match = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return match?.[1];
}

/** Why a resolved address is refused for this environment, or undefined when it is allowed. */
export function refusedAddress(address: string, environment: string): string | undefined {
  const v4 = mappedIpv4(address);
  const ip = v4 ?? address;
  const family = isIP(ip) === 6 ? 'ipv6' : 'ipv4';
  if (LOOPBACK.check(ip, family)) return environment === 'sandbox' ? undefined : `loopback address ${address} is not allowed for live endpoints`;
  if (ALWAYS_REFUSED.check(ip, family)) return `private, link-local or reserved address ${address} is not allowed`;
  return undefined;
}

/** The registration check: scheme by environment, then every address the host resolves to. */
export async function checkEndpointUrl(url: string, environment: string): Promise<string | undefined> {
  const parsed = new URL(url);
  if (environment === 'live' && parsed.protocol !== 'https:') return 'live endpoints must use https';
  if (parsed.username || parsed.password) return 'credentials in the URL are not allowed';
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = (await lookup(host, { all: true })).map((entry) => entry.address);
    } catch {
      return `host ${host} does not resolve`;
    }
  }
  for (const address of addresses) {
    const refusal = refusedAddress(address, environment);
    if (refusal) return refusal;
  }
  return undefined;
}
