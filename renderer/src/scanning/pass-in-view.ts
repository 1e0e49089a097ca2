/** A pass read again within this long of its last sighting is the same pass still held up. */
export const REPEAT_WINDOW_MS = 3000;

/**
 * Frames the decoder that last read a pass must look at without finding it before that pass
 * counts as gone: at ~16 reads a second, about a fifth of a second, far inside the window.
 */
export const MISSES_TO_LEAVE = 3;

/**
 * Tells a pass shown anew from the same pass still held up to the camera, so a visitor who keeps
 * a pass in view is decided once, not refused a moment later as "already used".
 *
 * A pass read again is the one still in view unless it has left: at least REPEAT_WINDOW_MS since
 * it was last seen, and meanwhile the decoder that last read it has looked at MISSES_TO_LEAVE
 * frames without it. Time alone was the rule before, and it failed on a slow or busy kiosk: when
 * the page reads a frame every few seconds (a cheap tablet, the CPU taken by something else), the
 * window passed between two readings of a pass that never moved, and the second was refused.
 * Looks count, not time, so a kiosk that looks slowly waits for as many looks.
 *
 * Only the decoder that last read the pass counts its misses: the other one may fail on every
 * frame of a pass it cannot read (html5-qrcode on a small or worn code) while it is in plain view.
 */
export class PassInView {
  #text: string | undefined;
  #source: string | undefined;
  #seenAt = -Infinity;
  #misses = 0;

  constructor(
    private readonly windowMs = REPEAT_WINDOW_MS,
    private readonly missesToLeave = MISSES_TO_LEAVE,
  ) {}

  /** Whether `text`, read at `now`, is the pass still in view rather than one shown anew. */
  holds(text: string, now: number): boolean {
    if (text !== this.#text) return false;
    return now - this.#seenAt < this.windowMs || this.#misses < this.missesToLeave;
  }

  /** `source` read `text` at `now`: the pass is (still) in view, and its misses start again. */
  saw(text: string, source: string, now: number): void {
    this.#text = text;
    this.#source = source;
    this.#seenAt = now;
    this.#misses = 0;
  }

  /** `source` looked at a whole frame and found no pass in it. */
  missed(source: string): void {
    if (source === this.#source) this.#misses++;
  }
}
