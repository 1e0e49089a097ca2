import { randomBytes } from 'node:crypto';
import type { Request, Response } from 'express';
import type { SecretBox } from '../secrets/secret-box.ts';
import type { SessionSettings } from './session.ts';

/**
 * OWASP's device cookie: a browser a person has fully signed in from before carries a sealed
 * note of it, and its guesses are counted for that device alone, not in the account's and the
 * address's buckets that strangers fill. Ten wrong passwords from ten addresses lock a stranger
 * out of the account; the owner's own laptop still signs in (and is itself held after ten
 * wrong guesses of its own). The note is sealed with the server's key: it cannot be made or
 * changed without it, and it names the email it was issued for.
 */
export const DEVICE_COOKIE = 'tsaro_device';
const DEVICE_MAX_AGE_S = 180 * 24 * 3600;
const PREFIX = 'device:v1:';

/** A new note for this browser and this email. */
export function deviceCookieFor(box: SecretBox, email: string): string {
  return box.seal(`${PREFIX}${randomBytes(12).toString('base64url')}:${email.toLowerCase()}`);
}

/** The device's id when the request carries a note issued for `email`; undefined otherwise. */
export function trustedDevice(req: Request, box: SecretBox, email: string): string | undefined {
  const value = cookieValue(req.get('cookie'), DEVICE_COOKIE);
  if (!value) return undefined;
  let note: string;
  try {
    note = box.open(decodeURIComponent(value));
  } catch {
    return undefined;
  }
  if (!note.startsWith(PREFIX)) return undefined;
  const rest = note.slice(PREFIX.length);
  const colon = rest.indexOf(':');
  if (colon < 0 || rest.slice(colon + 1) !== email.toLowerCase()) return undefined;
  return rest.slice(0, colon);
}

export function setDeviceCookie(res: Response, value: string, settings: SessionSettings): void {
  const secure = settings.publicUrl.startsWith('https:') ? '; Secure' : '';
  res.append('Set-Cookie', `${DEVICE_COOKIE}=${encodeURIComponent(value)}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${DEVICE_MAX_AGE_S}${secure}`);
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
}
