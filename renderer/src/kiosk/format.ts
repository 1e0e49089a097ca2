import type { Translate } from '../i18n/en.ts';

/** Whose way of writing a time each language follows: English as written in Nigeria, not the United States. */
const CLOCK_LOCALE: Record<string, string> = { en: 'en-NG' };

/**
 * A time of day as the guard reads it, and as the console shows it: 24-hour, "18:04", in every
 * language the kiosk speaks (Nigerian English, Hausa, Pidgin). Plain "en" gave "06:04 PM"
 * (issue #35). Every time on the kiosk's screens goes through here.
 */
export function clockTime(iso: string, language: string): string {
  return new Intl.DateTimeFormat(CLOCK_LOCALE[language] ?? language, { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(new Date(iso));
}

export function ago(iso: string, t: Translate, now = Date.now()): string {
  const minutes = Math.floor((now - Date.parse(iso)) / 60_000);
  if (minutes < 1) return t('time.justNow');
  if (minutes < 60) return t('time.minutesAgo', { count: minutes });
  return t('time.hoursAgo', { count: Math.floor(minutes / 60) });
}

export function duration(fromIso: string, t: Translate, now = Date.now()): string {
  const minutes = Math.max(0, Math.floor((now - Date.parse(fromIso)) / 60_000));
  if (minutes < 60) return t('time.duration.minutes', { minutes });
  return t('time.duration.hours', { hours: Math.floor(minutes / 60), minutes: minutes % 60 });
}

/** A typed code without its dash gets one: the part after the dash is always 4 characters. */
export function normalizeTypedCode(text: string): string {
  const compact = text.trim().toUpperCase().replace(/\s+/g, '');
  if (compact.includes('-') || compact.length < 6 || compact.length > 10) return compact;
  return `${compact.slice(0, -4)}-${compact.slice(-4)}`;
}

/** An id for one panic press (the core refuses a second incident for the same id). */
export function newPressId(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** Whole seconds from now until `iso`, never negative. */
export function secondsUntil(iso: string, now = Date.now()): number {
  return Math.max(0, Math.ceil((Date.parse(iso) - now) / 1000));
}

export type WalkInField = 'visitorName' | 'visitorPhone' | 'hostUserId' | 'notes';

/**
 * How a guard would write it: a name or a house gets a capital at the start of each word, and a
 * house's letter after a number stays one ("12B", not "12b"); notes are a sentence, a capital
 * only at the start.
 */
export function addCharacter(text: string, character: string, field: WalkInField): string {
  if (field === 'visitorPhone') return /[0-9+ -]/.test(character) ? text + character : text;
  // "12B", "Flat 7C": a letter right after a digit stays a capital; otherwise as a name.
  if (field === 'hostUserId' && /[0-9]$/.test(text)) return text + character.toUpperCase();
  const startsWord = text.length === 0 || /[ \-'.,/]$/.test(text);
  if (field === 'notes') return text + (text.length === 0 || /[.!?] $/.test(text) ? character.toUpperCase() : character.toLowerCase());
  return text + (startsWord ? character.toUpperCase() : character.toLowerCase());
}
