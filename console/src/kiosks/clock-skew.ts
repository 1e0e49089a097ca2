/** A kiosk whose clock is off by more than this misjudges when a code starts and ends offline. */
export const SKEW_WARN_S = 60;

const MINUTE_S = 60;
const HOUR_S = 60 * MINUTE_S;
const DAY_S = 24 * HOUR_S;
const YEAR_S = 365.25 * DAY_S;

/** `n unit`, with the unit in the plural when n is not 1. */
const counted = (n: number, unit: string, plural = `${unit}s`) => `${n.toLocaleString('en-GB')} ${n === 1 ? unit : plural}`;

/** How far off, in the largest unit that reads naturally: "12.5 s", "14 min", "3 h", "9 days", "57 years". */
function distance(abs: number): string {
  if (abs < MINUTE_S) return `${abs.toFixed(abs < 10 ? 1 : 0)} s`;
  if (abs < HOUR_S) return counted(Math.round(abs / MINUTE_S), 'min', 'min');
  if (abs < DAY_S) return counted(Math.round(abs / HOUR_S), 'h', 'h');
  if (abs < YEAR_S) return counted(Math.round(abs / DAY_S), 'day');
  return counted(Math.round(abs / YEAR_S), 'year');
}

/**
 * A kiosk's clock against the server's, as the kiosks screen says it: "in step", "12.5 s ahead",
 * "57 years behind" (a clock whose battery died says 1970), and whether it is off enough to warn.
 */
export function describeClockSkew(seconds: number | null): { text: string; warn: boolean } {
  if (seconds === null) return { text: 'unknown (last heartbeat was queued)', warn: false };
  const abs = Math.abs(seconds);
  if (abs < 1) return { text: 'in step', warn: false };
  return { text: `${distance(abs)} ${seconds > 0 ? 'ahead' : 'behind'}`, warn: abs > SKEW_WARN_S };
}
