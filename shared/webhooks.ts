/**
 * Webhook signatures, Stripe's scheme: the header
 *
 *     Svc-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>[,v1=...]
 *
 * During a secret rotation a delivery carries one `v1` per valid secret. Uses WebCrypto, so it
 * runs in Node 20+, browsers, Deno and workers alike.
 */
export const SIGNATURE_HEADER = 'Svc-Signature';
export const DEFAULT_TOLERANCE_SECONDS = 300;

const encoder = new TextEncoder();

async function hmacHex(secret: string, text: string): Promise<string> {
  const key = await crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, encoder.encode(text)));
  return Array.from(mac, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** The header value for a body signed at `timestamp` (unix seconds) with each of `secrets`. */
export async function signatureHeader(secrets: string[], timestamp: number, rawBody: string): Promise<string> {
  const signatures = await Promise.all(secrets.map((secret) => hmacHex(secret, `${timestamp}.${rawBody}`)));
  return [`t=${timestamp}`, ...signatures.map((signature) => `v1=${signature}`)].join(',');
}

function constantTimeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

export interface VerifyOptions {
  /** Oldest acceptable `t`, in seconds from now (default 300): a captured delivery can not be replayed later. */
  toleranceSeconds?: number;
  /** Unix seconds; defaults to the current time. */
  now?: number;
}

/**
 * True when `header` holds a `v1` signature of `rawBody` (the bytes exactly as received, before
 * any JSON parsing) made with `secret`, at a `t` within the tolerance window.
 */
export async function verifyWebhookSignature(
  rawBody: string,
  header: string | null | undefined,
  secret: string,
  options: VerifyOptions = {},
): Promise<boolean> {
  if (!header) return false;
  const parts = header.split(',').map((part) => part.trim().split('='));
  const timestamp = Number(parts.find(([name]) => name === 't')?.[1]);
  if (!Number.isInteger(timestamp)) return false;
  const now = options.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - timestamp) > (options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS)) return false;
  const expected = await hmacHex(secret, `${timestamp}.${rawBody}`);
  return parts.some(([name, value]) => name === 'v1' && value !== undefined && constantTimeEqual(value, expected));
}
