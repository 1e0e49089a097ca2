/**
 * Checks a delivery's `Svc-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`
 * (Stripe's scheme; during a secret rotation one `v1` per secret). WebCrypto only: Node 20+,
 * browsers, Deno and workers alike. The package stands alone, so it does not import the server's
 * signer; the tests check the two against each other on real deliveries.
 */
export interface VerifyOptions {
  /** How far `t` may be from now, in seconds (default 300): an old delivery can not be replayed. */
  toleranceSeconds?: number;
  /** Unix seconds; defaults to the current time. */
  now?: number;
}

const encoder = new TextEncoder();

async function hmacHex(secret: string, text: string): Promise<string> {
  const key = await crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, encoder.encode(text)));
  return Array.from(mac, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/**
 * True when `header` carries a `v1` signature of `rawBody` (the bytes as received, before any
 * JSON parsing) made with `secret` at a `t` within the tolerance.
 */
export async function verifyWebhookSignature(
  rawBody: string,
  header: string | null | undefined,
  secret: string,
  options: VerifyOptions = {},
): Promise<boolean> {
  if (!header) return false;
  const parts = header.split(',').map((part) => {
    const at = part.indexOf('=');
    return [part.slice(0, at).trim(), part.slice(at + 1).trim()] as const;
  });
  const t = parts.find(([name]) => name === 't')?.[1];
  if (t === undefined || !/^\d+$/.test(t)) return false;
  const now = options.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - Number(t)) > (options.toleranceSeconds ?? 300)) return false;
  const expected = await hmacHex(secret, `${t}.${rawBody}`);
  return parts.some(([name, value]) => name === 'v1' && sameText(value, expected));
}
