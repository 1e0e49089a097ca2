import { randomInt } from 'node:crypto';
import { totpCode } from './console.ts';
import type { TestServer } from './server.ts';

/**
 * A client address of this test's own (the servers run with TRUST_PROXY=loopback): per-address
 * limits, kept in the shared Redis for 15 minutes, never reach another test's requests.
 */
export function ownAddress(): string {
  return `10.${randomInt(1, 255)}.${randomInt(1, 255)}.${randomInt(1, 255)}`;
}

/** A console request from a browser at `address`, answering its status. */
export async function consolePost(server: TestServer, path: string, body: unknown, address: string, cookie?: string, csrf?: string): Promise<number> {
  const headers: Record<string, string> = { 'content-type': 'application/json', origin: new URL(server.baseUrl).origin, 'x-forwarded-for': address };
  if (cookie) headers.cookie = cookie;
  if (csrf) headers['x-csrf-token'] = csrf;
  const response = await fetch(`${server.baseUrl}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  await response.arrayBuffer();
  return response.status;
}

/** How many of each status a burst answered. */
export function tally(statuses: number[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

/** Six digits that are not the code the app shows now (nor one step either side). */
export async function wrongTotp(server: TestServer, secret: string): Promise<string> {
  const near = new Set([await totpCode(server, secret, -1), await totpCode(server, secret), await totpCode(server, secret, 1)]);
  let code = '000000';
  while (near.has(code)) code = String(randomInt(0, 1_000_000)).padStart(6, '0');
  return code;
}
