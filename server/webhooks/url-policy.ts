import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/**
 * Where a webhook may be sent. Live endpoints: https to public addresses only, never private,
 * loopback, link-local (cloud metadata at 169.254.169.254), multicast or reserved ranges.
 * Sandbox endpoints may also be http. Loopback and private addresses (the server's own Redis or
 * PostgreSQL, the operator's network) only for sandbox endpoints, and only when the operator
 * sets WEBHOOK_ALLOW_PRIVATE=1 (development and tests); link-local and reserved ranges never.
 * Checked at registration and again for every connection (the resolved address, so DNS
 * rebinding can not redirect a delivery).
 */
export interface TargetPolicy {
  environment: string;
  /** WEBHOOK_ALLOW_PRIVATE: sandbox endpoints may reach loopback and private addresses. */
  allowPrivate: boolean;
}

const ALWAYS_REFUSED = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['169.254.0.0', 16],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
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
/** Private networks (RFC 1918, carrier-grade NAT, IPv6 unique local). */
const PRIVATE = new BlockList();
PRIVATE.addSubnet('10.0.0.0', 8, 'ipv4');
PRIVATE.addSubnet('100.64.0.0', 10, 'ipv4');
PRIVATE.addSubnet('172.16.0.0', 12, 'ipv4');
PRIVATE.addSubnet('192.168.0.0', 16, 'ipv4');
PRIVATE.addSubnet('fc00::', 7, 'ipv6');

function mappedIpv4(address: string): string | undefined {
  const match = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return match?.[1];
}

/** Why a resolved address is refused under this policy, or undefined when it is allowed. */
export function refusedAddress(address: string, policy: TargetPolicy): string | undefined {
  const v4 = mappedIpv4(address);
  const ip = v4 ?? address;
  const family = isIP(ip) === 6 ? 'ipv6' : 'ipv4';
  // ::1 sits inside the refused IPv4-compatible range: loopback is told apart first.
  const loopback = LOOPBACK.check(ip, family);
  if (!loopback && ALWAYS_REFUSED.check(ip, family)) return `link-local or reserved address ${address} is not allowed`;
  const kind = loopback ? 'loopback' : PRIVATE.check(ip, family) ? 'private' : undefined;
  if (!kind) return undefined;
  if (policy.environment !== 'sandbox') return `${kind} address ${address} is not allowed for live endpoints`;
  if (!policy.allowPrivate) {
    return `${kind} address ${address} is not allowed: this server does not send webhooks to loopback or private addresses (its operator can allow them for sandbox endpoints with WEBHOOK_ALLOW_PRIVATE=1, for development)`;
  }
  return undefined;
}

/** The registration check: scheme by environment, then every address the host resolves to. */
export async function checkEndpointUrl(url: string, policy: TargetPolicy): Promise<string | undefined> {
  const parsed = new URL(url);
  if (policy.environment === 'live' && parsed.protocol !== 'https:') return 'live endpoints must use https';
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
    const refusal = refusedAddress(address, policy);
    if (refusal) return refusal;
  }
  return undefined;
}
