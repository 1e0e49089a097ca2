/** Where the core reads the time: tests pass the server's hand-moved clock. */
export interface KioskClock {
  now(): Date;
}

export const systemClock: KioskClock = { now: () => new Date() };
