import { describe, expect, it } from 'vitest';
import { BEAT_EVERY_MS, beatDue, beatHeard, locationLine, STALE_AFTER_MS } from '../../responder-app/src/presence.ts';

const LEKKI = { latitude: 6.4478, longitude: 3.4723 };
/** About 111 m north of LEKKI (0.001° of latitude). */
const NORTH_111M = { latitude: 6.4488, longitude: 3.4723 };
/** About 56 m north. */
const NORTH_56M = { latitude: 6.4483, longitude: 3.4723 };
const T0 = 1_800_000_000_000;
const sent = (available: boolean, at = T0) => ({ available, ...LEKKI, at });

describe('the responder heartbeat (when the phone tells the server where it is and whether it is free)', () => {
  it('goes out first of all, and whenever availability changes, fix or not', () => {
    expect(beatDue(null, true, LEKKI, T0)).toBe(true);
    expect(beatDue(null, false, null, T0)).toBe(true);
    expect(beatDue(sent(true), false, null, T0 + 1)).toBe(true); // took an incident: busy at once
    expect(beatDue(sent(false), true, LEKKI, T0 + 1)).toBe(true); // free again
  });

  it('while free: after a minute, or after moving more than 100 m; not before', () => {
    expect(beatDue(sent(true), true, LEKKI, T0 + BEAT_EVERY_MS)).toBe(false);
    expect(beatDue(sent(true), true, LEKKI, T0 + BEAT_EVERY_MS + 1)).toBe(true);
    expect(beatDue(sent(true), true, NORTH_56M, T0 + 1_000)).toBe(false);
    expect(beatDue(sent(true), true, NORTH_111M, T0 + 1_000)).toBe(true);
  });

  it('off duty, or without a fix, only a change of availability counts', () => {
    expect(beatDue(sent(false), false, NORTH_111M, T0 + 10 * BEAT_EVERY_MS)).toBe(false);
    expect(beatDue(sent(true), true, null, T0 + 10 * BEAT_EVERY_MS)).toBe(false);
    expect(beatDue(sent(false), false, null, T0 + 10 * BEAT_EVERY_MS, true)).toBe(false);
  });

  it('working an incident: after a minute or 100 m, as while free, so the control room follows the responder', () => {
    expect(beatDue(sent(false), false, NORTH_56M, T0 + 1_000, true)).toBe(false);
    expect(beatDue(sent(false), false, NORTH_111M, T0 + 1_000, true)).toBe(true);
    expect(beatDue(sent(false), false, LEKKI, T0 + BEAT_EVERY_MS + 1, true)).toBe(true);
  });
});

describe("the duty screen's location line", () => {
  const fix = (ageMs: number) => ({ position: { ...LEKKI, accuracy: 12.4, at: T0 - ageMs }, problem: null });

  it('says the place is sent with its accuracy while fresh, and stale (with its age) after two minutes', () => {
    expect(locationLine(true, fix(30_000), T0)).toEqual({ text: 'Location sent (±12 m).', problem: false });
    expect(locationLine(true, fix(STALE_AFTER_MS + 1), T0)).toEqual({ text: 'Location is stale: last fix 2 min ago.', problem: true });
    expect(locationLine(true, fix(7 * 60_000), T0).text).toBe('Location is stale: last fix 7 min ago.');
  });

  it('says the place is sent only once the server has answered the beat: until then, that it is on its way', () => {
    expect(locationLine(true, fix(1_000), T0, false)).toEqual({ text: 'Sending your location… you are offered incidents once it is through.', problem: false });
    expect(locationLine(true, fix(STALE_AFTER_MS + 1), T0, false).text).toBe('Location is stale: last fix 2 min ago.');
    const beat = (available: boolean, heard?: boolean) => ({ available, latitude: LEKKI.latitude, longitude: LEKKI.longitude, at: T0, heard });
    // Just switched on duty: no beat yet, or the last one said off duty.
    expect(beatHeard({ onDuty: true, work: null, lastBeat: null })).toBe(false);
    expect(beatHeard({ onDuty: true, work: null, lastBeat: beat(false, true) })).toBe(false);
    // The on-duty beat queued, then answered.
    expect(beatHeard({ onDuty: true, work: null, lastBeat: beat(true, false) })).toBe(false);
    expect(beatHeard({ onDuty: true, work: null, lastBeat: beat(true, true) })).toBe(true);
    // State saved by an older app has no mark: taken as heard.
    expect(beatHeard({ onDuty: true, work: null, lastBeat: beat(true) })).toBe(true);
  });

  it('tells the responder what to do when the browser refuses or has no fix, and nothing about location off duty', () => {
    expect(locationLine(true, { position: null, problem: 'denied' }, T0)).toMatchObject({ problem: true, text: expect.stringContaining('Allow location for this site') });
    expect(locationLine(true, { position: null, problem: 'unsupported' }, T0)).toMatchObject({ problem: true, text: expect.stringContaining('not offered incidents') });
    expect(locationLine(true, { position: null, problem: 'unavailable' }, T0)).toEqual({ text: 'No location fix yet: move to open sky.', problem: true });
    expect(locationLine(true, { position: null, problem: null }, T0)).toEqual({ text: 'Finding your location…', problem: false });
    expect(locationLine(false, fix(0), T0)).toEqual({ text: 'Off duty: you are not offered incidents and your location is not sent.', problem: false });
  });
});
