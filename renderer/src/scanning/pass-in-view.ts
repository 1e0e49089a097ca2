/** A pass read again within this long of its last sighting is the same pass still held up. */
export const REPEAT_WINDOW_MS = 3000;

/**
 * Frames in a row each decoder that has read a pass must look at without finding it before that
 * pass counts as gone: at ~16 reads a second, about a fifth of a second, far inside the window.
 */
export const MISSES_TO_LEAVE = 3;

/**
 * Tells a pass shown anew from the same pass still held up to the camera, so a visitor who keeps
 * a pass in view is decided once, not refused a moment later as "already used".
 *
 * A pass read again is the one still in view unless it has left: at least REPEAT_WINDOW_MS since
 * it was last seen, and meanwhile each decoder that read it has looked at MISSES_TO_LEAVE frames
 * in a row without it. Time alone was the rule before, and it failed on a slow or busy kiosk: when
 * the page reads a frame every few seconds (a cheap tablet, the CPU taken by something else), the
 * window passed between two readings of a pass that never moved, and the second was refused.
 * Looks count, not time, so a kiosk that looks slowly waits for as many looks.
 *
 * Only a decoder that has read the pass counts its misses, and every one that has must have
 * missed it that many frames in a row: a decoder that cannot read a pass (html5-qrcode on a small
 * or worn code) fails on every frame of it while it is in plain view, and one that reads a
 * marginal pass only now and then fails on some frames between.
 */
export class PassInView {
  #text: string | undefined;
  #seenAt = -Infinity;
  /** Each decoder that has read the pass, with the frames it has looked at since without finding it. */
  readonly #misses = new Map<string, number>();

  constructor(
    private readonly windowMs = REPEAT_WINDOW_MS,
    private readonly missesToLeave = MISSES_TO_LEAVE,
  ) {}

  /** Whether `text`, read at `now`, is the pass still in view rather than one shown anew. */
  holds(text: string, now: number): boolean {
    if (text !== this.#text) return false;
    if (now - this.#seenAt < this.windowMs) return true;
    for (const misses of this.#misses.values()) if (misses < this.missesToLeave) return true;
    return false;
  }

  /** `source` read `text` at `now`: the pass is (still) in view, and every decoder's misses start again. */
  saw(text: string, source: string, now: number): void {
    if (text !== this.#text) this.#misses.clear();
    this.#text = text;
    this.#seenAt = now;
    for (const known of this.#misses.keys()) this.#misses.set(known, 0);
    this.#misses.set(source, 0);
  }

  /** `source` looked at a whole frame and found no pass in it. */
  missed(source: string): void {
    const misses = this.#misses.get(source);
    if (misses !== undefined) this.#misses.set(source, misses + 1);
  }
}
