/**
 * The least time between the starts of two frame reads: at most ~16 reads a second, each of a
 * frame as the camera delivers it (an empty frame reads in ~6 ms, measured by bench/gate-scan.ts).
 */
export const FRAME_INTERVAL_MS = 60;

/**
 * How long the page rests after a read of `readMs` before the next: reads start at least
 * FRAME_INTERVAL_MS apart, and the decoder never holds the main thread more than a third of the
 * time. An empty wall reads in ~6 ms; a busy scene (people, cars, foliage) can take ten times
 * that, and the panic button and the answer share the thread.
 */
export function restAfterRead(readMs: number): number {
  return Math.max(FRAME_INTERVAL_MS - readMs, 2 * readMs);
}

/**
 * How often html5-qrcode decodes a frame itself (its `fps`). zxing-wasm reads first almost
 * always; 3 fps was tried to spare the main thread and made no difference one could measure
 * (its JavaScript decoder takes 2-4 ms a frame at p50), so it keeps its full rate as a fallback.
 */
export const FIRST_DECODER_FPS = 10;

/** The moments of one camera read that a benchmark times (bench/gate-scan.ts). */
export type ScanTraceEvent = 'read-start' | 'read-end' | 'decoded' | 'call-start' | 'call-end';

/**
 * Tells a listener, if the page has one, when a frame read starts and ends, when a pass is read
 * (by either decoder), and when the kiosk call that decides it starts and ends. Without a
 * listener, as on every kiosk, nothing is kept: a kiosk runs for weeks, so no timeline entries
 * pile up.
 */
export function traceScan(event: ScanTraceEvent, source?: string): void {
  const listener = (globalThis as { tsaroScanTrace?: (event: ScanTraceEvent, at: number, source?: string) => void }).tsaroScanTrace;
  listener?.(event, performance.now(), source);
}
