import { afterEach, describe, expect, it, vi } from 'vitest';
import { listenForWedgeScans, type KeySource } from '../../renderer/src/wedge.ts';

/**
 * The USB scanner's keys as the page receives them: each with the moment it happened (its time
 * stamp), handed to the listener whenever the page gets round to it.
 */
function keyboard() {
  const target = new EventTarget();
  const scans: string[] = [];
  const stop = listenForWedgeScans(target as unknown as KeySource, { onScan: (text) => scans.push(text) });
  const key = (key: string, at: number, modifiers: { ctrlKey?: boolean } = {}) => {
    const event = new Event('keydown', { cancelable: true });
    Object.defineProperties(event, {
      key: { value: key },
      timeStamp: { value: at },
      ctrlKey: { value: modifiers.ctrlKey ?? false },
      altKey: { value: false },
      metaKey: { value: false },
    });
    target.dispatchEvent(event);
    return event;
  };
  /** Types `text` then Enter, `gapMs` apart by their time stamps, starting at `from`. */
  const type = (text: string, from: number, gapMs: number) => {
    [...text].forEach((character, index) => key(character, from + index * gapMs));
    return key('Enter', from + text.length * gapMs);
  };
  return { key, type, scans, stop };
}

afterEach(() => vi.restoreAllMocks());

const pass = 'TSR1.eyJjIjoiREVNTy0yVVYyIn0.c2lnbmF0dXJl';

describe('telling a USB scanner from a person at the keyboard', () => {
  it('a burst of keys a few milliseconds apart, ended by Enter, is one scan, and its Enter goes no further', () => {
    const { type, scans } = keyboard();
    const enter = type(pass, 1_000, 4);
    expect(scans).toEqual([pass]);
    expect(enter.defaultPrevented).toBe(true);
  });

  it('keys are timed by when they happened, so a page that was busy and handles them late still reads the whole pass', () => {
    // The page's clock while it handles the keys: half-way through, a 400 ms render or decoded
    // frame holds it up, and the rest of the keys are handled after it, all at once. Their
    // stamps are still 5 ms apart: one scan, not a head lost in a field and a tail read as a
    // code of its own.
    let handledAt = 5_000;
    vi.spyOn(performance, 'now').mockImplementation(() => handledAt);
    const { key, scans } = keyboard();
    [...pass].forEach((character, index) => {
      handledAt += index === 10 ? 400 : 1;
      key(character, 2_000 + index * 5);
    });
    key('Enter', 2_000 + pass.length * 5);
    expect(scans).toEqual([pass]);
  });

  it('a person typing (100 ms and more between keys) is not a scan, and a pause of more than 150 ms between keys ends a burst', () => {
    const { type, key, scans } = keyboard();
    expect(type('DEMO2UV2', 0, 120).defaultPrevented).toBe(false);
    // A scan whose keys stopped for 200 ms mid-way: only the part after the pause is a burst.
    [...'ABCDEF'].forEach((character, index) => key(character, 10_000 + index * 5));
    [...'GHIJ'].forEach((character, index) => key(character, 10_225 + index * 5));
    key('Enter', 10_245);
    expect(scans).toEqual(['GHIJ']);
  });

  it('one late key within 150 ms keeps the burst, and short bursts or keys with Ctrl are not scans', () => {
    const { key, type, scans } = keyboard();
    [...'ABCDE'].forEach((character, index) => key(character, index * 4));
    key('F', 16 + 140);
    [...'GHIJKLMNOPQRST'].forEach((character, index) => key(character, 160 + index * 4));
    key('Enter', 220);
    expect(scans).toEqual(['ABCDEFGHIJKLMNOPQRST']);

    type('ABC', 1_000, 4);
    key('x', 2_000, { ctrlKey: true });
    key('Enter', 2_004);
    expect(scans).toHaveLength(1);
  });

  it('stops listening when asked', () => {
    const { type, stop, scans } = keyboard();
    stop();
    type(pass, 0, 4);
    expect(scans).toEqual([]);
  });
});
