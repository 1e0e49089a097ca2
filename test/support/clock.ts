import type { Clock } from '../../server/clock.ts';

/** A clock a test moves by hand: time-dependent rules are tested without sleeping. */
export class ManualClock implements Clock {
  private current: number;
  constructor(start = '2026-11-22T10:00:00.000Z') {
    this.current = Date.parse(start);
  }
  now(): Date {
    return new Date(this.current);
  }
  advance(ms: number): void {
    this.current += ms;
  }
  set(iso: string): void {
    this.current = Date.parse(iso);
  }
}
