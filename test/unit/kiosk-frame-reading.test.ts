import { describe, expect, it } from 'vitest';
import { FRAME_INTERVAL_MS, restAfterRead } from '../../renderer/src/scanning/scan-timing.ts';

describe('how often the kiosk reads camera frames', () => {
  it('starts reads at least FRAME_INTERVAL_MS apart, and never keeps the page busy reading more than a third of the time', () => {
    for (const readMs of [0, 1, 6, 19, 20, 21, 45, 60, 120, 400]) {
      const rest = restAfterRead(readMs);
      expect(readMs + rest, `a ${readMs} ms read`).toBeGreaterThanOrEqual(FRAME_INTERVAL_MS);
      expect(readMs / (readMs + rest), `a ${readMs} ms read`).toBeLessThanOrEqual(1 / 3);
    }
    // An empty wall (~6 ms a read) is read about 16 times a second, not held back further.
    expect(6 + restAfterRead(6)).toBe(FRAME_INTERVAL_MS);
  });
});
