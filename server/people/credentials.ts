import { createHash, createHmac, randomBytes } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';
import { dictionary } from '@zxcvbn-ts/language-common';
import { generateSecret, generateURI, verify as verifyTotpCode } from 'otplib';
import { MIN_PASSWORD_LENGTH } from '../../shared/schemas/console.ts';
import { ApiError } from '../http/errors.ts';

/**
 * Everything a person signs in with, made and checked here with well-kept libraries: argon2id
 * (@node-rs/argon2, on libuv's thread pool, so a hash never stalls the event loop and the SQLite
 * group commit with it), RFC 6238 TOTP (otplib), and the zxcvbn common-password list. Tokens
 * (invitations, sessions) are 256 random bits stored as SHA-256 hashes; recovery codes 80 bits.
 */

/** OWASP's argon2id minimum (19 MiB, 2 passes): about 20 ms here, on a thread of its own. */
const ARGON2 = { memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export const hashPassword = (password: string): Promise<string> => hash(password, ARGON2);
export const passwordMatches = (stored: string, password: string): Promise<boolean> => verify(stored, password).catch(() => false);

/** A hash to compare against when there is no person, so a wrong email costs what a wrong password does. */
let decoy: Promise<string> | undefined;
export const decoyHash = (): Promise<string> => (decoy ??= hashPassword(randomBytes(16).toString('hex')));

const COMMON = new Set<string>(dictionary['passwords-common'] as string[]);

/** At least 12 characters and not on the common-password list: a 400 naming `field`. */
export function checkNewPassword(password: string, field: string): void {
  if (password.length < MIN_PASSWORD_LENGTH) throw new ApiError(400, `${field}: at least ${MIN_PASSWORD_LENGTH} characters`);
  if (COMMON.has(password.toLowerCase())) throw new ApiError(400, `${field}: this password is on a list of common passwords; choose another`);
}

export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

export function tokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** The session's CSRF token: derived from the session token, so never stored and never readable without the cookie. */
export function csrfTokenOf(sessionToken: string): string {
  return createHmac('sha256', sessionToken).update('tsaro console csrf').digest('base64url');
}

const RECOVERY_ALPHABET = 'ABCDEFGHJKMNPQRSTVWXYZ23456789';
/** `XXXX-XXXX-XXXX-XXXX`: 16 characters of 30, about 78 bits. */
export function newRecoveryCode(): string {
  let code = '';
  while (code.length < 16) {
    for (const byte of randomBytes(32)) if (byte < 240 && code.length < 16) code += RECOVERY_ALPHABET[byte % 30];
  }
  return code.match(/.{4}/g)!.join('-');
}
export const recoveryCodeHash = (code: string): string => tokenHash(code.toUpperCase().replace(/[^A-Z0-9]/g, ''));

export const newTotpSecret = (): string => generateSecret();
export const totpUri = (secret: string, email: string, organization: string): string =>
  generateURI({ issuer: `Tsaro (${organization})`, label: email, secret });

export const TOTP_STEP_S = 30;

/**
 * The 30-second step a code is right for (one step of clock drift either way), or undefined.
 * The caller refuses a step at or before the last one accepted: a code is used once.
 */
export async function totpStep(secret: string, code: string, nowMs: number): Promise<number | undefined> {
  const result = await verifyTotpCode({ secret, token: code, epochTolerance: TOTP_STEP_S, epoch: Math.floor(nowMs / 1000) });
  if (!result.valid) return undefined;
  return Math.floor(nowMs / 1000 / TOTP_STEP_S) + (result.delta ?? 0);
}
