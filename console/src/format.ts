import { DAY_MS } from '../../shared/time.ts';
// 24-hour, as the gate kiosk writes times (renderer/src/kiosk/format.ts, clockTime): a guard and
// the control room read the same "18:04". Said outright, not left to en-GB's default.
const DATE_TIME = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short', hourCycle: 'h23' });

/** `22 Nov 2026, 18:04` in the reader's own time zone: every time the console shows goes through here. */
export const formatTime = (iso: string | null | undefined): string => (iso ? DATE_TIME.format(new Date(iso)) : '—');


/** `3 days ago`, `in 5 hours`: for last-used and expiry columns. */
export function relativeTime(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return 'never';
  const diff = new Date(iso).getTime() - now;
  const abs = Math.abs(diff);
  const [value, unit] =
    abs < 60_000 ? [0, 'minute'] : abs < 3_600_000 ? [Math.round(abs / 60_000), 'minute'] : abs < DAY_MS ? [Math.round(abs / 3_600_000), 'hour'] : [Math.round(abs / DAY_MS), 'day'];
  if (value === 0) return 'just now';
  const words = `${value} ${unit}${value === 1 ? '' : 's'}`;
  return diff < 0 ? `${words} ago` : `in ${words}`;
}

export const daysSince = (iso: string, now = Date.now()): number => Math.floor((now - new Date(iso).getTime()) / DAY_MS);

/** `Chrome on Windows` from a user agent: enough to recognise one's own devices. */
export function deviceOf(userAgent: string | null | undefined): string {
  if (!userAgent) return 'Unknown device';
  const ua = userAgent;
  const browser = /Edg\//.test(ua)
    ? 'Edge'
    : /OPR\/|Opera/.test(ua)
      ? 'Opera'
      : /Firefox\//.test(ua)
        ? 'Firefox'
        : /Chrome\/|Chromium\//.test(ua)
          ? 'Chrome'
          : /Safari\//.test(ua)
            ? 'Safari'
            : /curl|node|undici/i.test(ua)
              ? 'A program'
              : 'A browser';
  const system = /Android/.test(ua)
    ? 'Android'
    : /iPhone|iPad|iOS/.test(ua)
      ? 'iOS'
      : /Windows/.test(ua)
        ? 'Windows'
        : /Mac OS X|Macintosh/.test(ua)
          ? 'macOS'
          : /CrOS/.test(ua)
            ? 'ChromeOS'
            : /Linux/.test(ua)
              ? 'Linux'
              : null;
  return system ? `${browser} on ${system}` : browser;
}

/** Pretty JSON as text, for payloads: never rendered as HTML. */
export const prettyJson = (value: unknown): string => JSON.stringify(value, null, 2);
