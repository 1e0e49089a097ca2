/** Lengths of time in milliseconds, written once for the server, the kiosk and the schemas. */
export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;
