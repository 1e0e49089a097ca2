/**
 * The signed visitor pass a QR code carries:
 *
 *     TS1.<KID>.<CODE>.<ULID>.<VALID_FROM_MS>.<VALID_UNTIL_MS>.<MAX_USES>.<SIGNATURE>
 *
 * `TS1` is the version tag; `KID` names the organization's Ed25519 key for the environment;
 * `ULID` is the code id without its `code_` prefix; times are epoch milliseconds; the
 * signature is the 64-byte Ed25519 signature of everything before its dot, in Crockford
 * base32. Every character is in QR's alphanumeric set (0-9, A-Z, `.`, `-`), which packs 5.5
 * bits a character instead of 8: a smaller, coarser QR that cheap gate cameras read.
 * Case does not matter (a keyboard-wedge scanner with Caps Lock on still works).
 * Signing and verifying need Ed25519 (node:crypto in the server and the kiosk core); this
 * module only builds and reads the text, so it runs anywhere.
 */
export const PASS_VERSION = 'TS1';

export interface PassClaims {
  /** The code, e.g. `DEMO-7K2P`. */
  code: string;
  codeId: string;
  /** Epoch milliseconds. */
  validFrom: number;
  validUntil: number;
  maxUses: number;
}

export interface ParsedPass {
  kid: string;
  claims: PassClaims;
  /** The text the signature covers. */
  signedText: string;
  signature: Uint8Array;
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

export function base32Encode(bytes: Uint8Array): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += CROCKFORD[(buffer >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += CROCKFORD[(buffer << (5 - bits)) & 31];
  return out;
}

export function base32Decode(text: string): Uint8Array | undefined {
  const bytes: number[] = [];
  let buffer = 0;
  let bits = 0;
  for (const char of text) {
    const value = CROCKFORD.indexOf(char);
    if (value < 0) return undefined;
    buffer = ((buffer << 5) | value) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      bytes.push((buffer >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Uint8Array.from(bytes);
}

const CODE_ID_PREFIX = 'code_';

/** The text to sign for these claims. */
export function passSigningText(kid: string, claims: PassClaims): string {
  const ulid = claims.codeId.startsWith(CODE_ID_PREFIX) ? claims.codeId.slice(CODE_ID_PREFIX.length) : claims.codeId;
  return [PASS_VERSION, kid, claims.code, ulid, claims.validFrom, claims.validUntil, claims.maxUses].join('.');
}

export function assemblePass(signingText: string, signature: Uint8Array): string {
  return `${signingText}.${base32Encode(signature)}`;
}

export function looksLikePass(text: string): boolean {
  return text.trim().toUpperCase().startsWith(`${PASS_VERSION}.`);
}

const KID = /^[0-9A-Z]{4,16}$/;
const CODE = /^[A-Z]{2,6}-[0-9A-Z]{4}$/;
const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;
const MILLIS = /^\d{1,15}$/;

/** Reads a pass's parts; undefined for anything that is not a well-formed pass. Does not verify. */
export function parsePass(text: string): ParsedPass | undefined {
  const parts = text.trim().toUpperCase().split('.');
  if (parts.length !== 8 || parts[0] !== PASS_VERSION) return undefined;
  const [, kid, code, ulid, from, until, maxUses, signaturePart] = parts as [string, ...string[]] as string[];
  if (!KID.test(kid!) || !CODE.test(code!) || !ULID.test(ulid!)) return undefined;
  if (!MILLIS.test(from!) || !MILLIS.test(until!) || !/^\d{1,4}$/.test(maxUses!)) return undefined;
  const signature = base32Decode(signaturePart!);
  // Canonical only: 103 characters carry 515 bits for 512, and a pass whose spare bits differ
  // must not count as the same pass.
  if (!signature || signature.length !== 64 || base32Encode(signature) !== signaturePart) return undefined;
  return {
    kid: kid!,
    claims: { code: code!, codeId: `${CODE_ID_PREFIX}${ulid}`, validFrom: Number(from), validUntil: Number(until), maxUses: Number(maxUses) },
    signedText: parts.slice(0, 7).join('.'),
    signature,
  };
}

/** How a typed code is compared: any case, no surrounding spaces. */
export function normalizeCode(text: string): string {
  return text.trim().toUpperCase();
}
