import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { checkProperty, failurePath, propertyParameters } from '../support/property.ts';

/** A property that fails on purpose: big enough integers break it. */
const failing = () => fc.property(fc.integer({ min: 0, max: 1_000_000 }), (n) => n < 500);

describe('property tests print their seed and can be replayed exactly', () => {
  it('a failure logs the seed, the path and the command that replays it, then fails the test', () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      expect(() => checkProperty(failing(), { seed: 42 })).toThrow(/seed: 42, path: "[\d:]+"/);
      const line = String(logged.mock.calls.at(-1)?.[0]);
      expect(line).toMatch(/seed 42, path [\d:]+\. Replay: FC_SEED=42 FC_PATH=[\d:]+ npx vitest run test\/unit\/property-replay\.test\.ts -t /);
    } finally {
      logged.mockRestore();
    }
  });

  it('FC_SEED and FC_PATH from the environment replay the same counterexample', () => {
    const first = fc.check(failing(), propertyParameters({}, { FC_SEED: '7' }));
    expect(first.failed).toBe(true);
    const path = first.counterexamplePath!;
    const replayed = fc.check(failing(), propertyParameters({ seed: 999 }, { FC_SEED: '7', FC_PATH: path }));
    expect(replayed.failed).toBe(true);
    expect(replayed.counterexample).toEqual(first.counterexample);
    expect(replayed.numRuns).toBe(1);
  });

  it('without FC_SEED each run takes its own seed; a bad FC_SEED is refused by name', () => {
    expect(propertyParameters({}, {}).seed).toEqual(expect.any(Number));
    expect(() => propertyParameters({}, { FC_SEED: 'abc' })).toThrow(/FC_SEED/);
    expect(failurePath(new Error('{ seed: 1, path: "29:3:2:3:3", endOnFailure: true }'))).toBe('29:3:2:3:3');
  });
});
