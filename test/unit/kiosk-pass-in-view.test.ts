import { describe, expect, it } from 'vitest';
import { MISSES_TO_LEAVE, PassInView, REPEAT_WINDOW_MS } from '../../renderer/src/scanning/pass-in-view.ts';

const PASS = 'TSARO1.pass-a';
const OTHER = 'TSARO1.pass-b';

/** Reads as the camera view does: a pass the view does not hold is decided, and recorded either way. */
function reader(view = new PassInView()) {
  const decided: string[] = [];
  return {
    decided,
    read(text: string, source: string, now: number) {
      if (!view.holds(text, now)) decided.push(text);
      view.saw(text, source, now);
    },
    miss: (source: string, times = 1) => {
      for (let i = 0; i < times; i++) view.missed(source);
    },
  };
}

describe('a pass held up to the kiosk camera is decided once', () => {
  it('a pass read again and again while it stays in view is decided once', () => {
    const kiosk = reader();
    for (let at = 0; at <= 20_000; at += 250) kiosk.read(PASS, 'zxing-wasm', at);
    expect(kiosk.decided).toEqual([PASS]);
  });

  it('on a kiosk that reads a frame every few seconds, the pass that never moved is not decided again', () => {
    const kiosk = reader();
    kiosk.read(PASS, 'zxing-wasm', 0);
    // The page was starved: its next looks, seconds apart, all found the pass.
    kiosk.read(PASS, 'zxing-wasm', REPEAT_WINDOW_MS + 1_500);
    kiosk.read(PASS, 'html5-qrcode', 3 * REPEAT_WINDOW_MS);
    expect(kiosk.decided).toEqual([PASS]);
  });

  it('a pass taken away and shown again after the window is decided again', () => {
    const kiosk = reader();
    kiosk.read(PASS, 'zxing-wasm', 0);
    kiosk.miss('zxing-wasm', MISSES_TO_LEAVE);
    kiosk.read(PASS, 'zxing-wasm', REPEAT_WINDOW_MS);
    expect(kiosk.decided).toEqual([PASS, PASS]);
  });

  it('a pass out of view for less than the window is the same pass (a hand that wobbled)', () => {
    const kiosk = reader();
    kiosk.read(PASS, 'zxing-wasm', 0);
    kiosk.miss('zxing-wasm', 10);
    kiosk.read(PASS, 'zxing-wasm', REPEAT_WINDOW_MS - 1);
    expect(kiosk.decided).toEqual([PASS]);
  });

  it("only the decoder that read the pass counts it gone: the other one's failures on a code it cannot read do not", () => {
    const kiosk = reader();
    kiosk.read(PASS, 'zxing-wasm', 0);
    kiosk.miss('html5-qrcode', 50);
    kiosk.miss('zxing-wasm', MISSES_TO_LEAVE - 1);
    kiosk.read(PASS, 'zxing-wasm', REPEAT_WINDOW_MS * 2);
    expect(kiosk.decided).toEqual([PASS]);
    // Its own misses, in a row since its last sighting, do.
    kiosk.miss('zxing-wasm', MISSES_TO_LEAVE);
    kiosk.read(PASS, 'zxing-wasm', REPEAT_WINDOW_MS * 4);
    expect(kiosk.decided).toEqual([PASS, PASS]);
  });

  it('a pass both decoders have read is gone only when both have missed it, whichever read it last', () => {
    const kiosk = reader();
    kiosk.read(PASS, 'zxing-wasm', 0);
    kiosk.read(PASS, 'html5-qrcode', 100);
    // A starved page: html5-qrcode's timer keeps missing a marginal pass; zxing-wasm gets one frame, and misses it once.
    kiosk.miss('html5-qrcode', 20);
    kiosk.miss('zxing-wasm', MISSES_TO_LEAVE - 1);
    kiosk.read(PASS, 'zxing-wasm', REPEAT_WINDOW_MS * 2);
    expect(kiosk.decided).toEqual([PASS]);
    // A sighting by either starts both counts again.
    kiosk.miss('zxing-wasm', MISSES_TO_LEAVE);
    kiosk.read(PASS, 'html5-qrcode', REPEAT_WINDOW_MS * 2 + 100);
    kiosk.miss('html5-qrcode', MISSES_TO_LEAVE);
    kiosk.miss('zxing-wasm', MISSES_TO_LEAVE - 1);
    kiosk.read(PASS, 'zxing-wasm', REPEAT_WINDOW_MS * 4);
    expect(kiosk.decided).toEqual([PASS]);
    // Both missed it, in a row, and the window passed: shown again.
    kiosk.miss('zxing-wasm', MISSES_TO_LEAVE);
    kiosk.miss('html5-qrcode', MISSES_TO_LEAVE);
    kiosk.read(PASS, 'html5-qrcode', REPEAT_WINDOW_MS * 6);
    expect(kiosk.decided).toEqual([PASS, PASS]);
  });

  it('another pass in between makes the first one new again', () => {
    const kiosk = reader();
    kiosk.read(PASS, 'zxing-wasm', 0);
    kiosk.read(OTHER, 'zxing-wasm', 500);
    kiosk.read(PASS, 'zxing-wasm', 1_000);
    expect(kiosk.decided).toEqual([PASS, OTHER, PASS]);
  });
});
