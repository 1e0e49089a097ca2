/**
 * The Electron shell's decisions, as plain functions tested in Node (test/kiosk/electron-shell.test.ts):
 * main.ts only wires them to Electron's events.
 */

/** The camera, for our own page in our own window only; nothing else, ever. */
export function mayUseCamera(
  request: {
    permission: string;
    fromOurWindow: boolean;
    pageUrl: string | null;
    requestingUrl?: string | null;
    /** What a media request asks for (Electron's `mediaTypes`, or a check's `mediaType`): video only, never the microphone. */
    mediaTypes?: readonly string[];
  },
  rendererUrl: string,
): boolean {
  if (request.permission !== 'media' || !request.fromOurWindow) return false;
  if (request.mediaTypes?.some((type) => type !== 'video')) return false;
  if (request.pageUrl !== rendererUrl) return false;
  return request.requestingUrl == null || request.requestingUrl === rendererUrl;
}

/** What the operator sees when the kiosk cannot start: what failed, and that the kiosk is not running. */
export function startupFailureText(error: unknown): { title: string; message: string } {
  const reason = error instanceof Error ? error.message : String(error);
  return {
    title: 'Tsaro kiosk could not start',
    message: `The gate kiosk is NOT running (no scanning, no panic button).\n\n${reason}\n\nFix the cause and start the kiosk again.`,
  };
}

/**
 * When the page crashes or hangs, it is loaded again (the panic button must come back), at
 * once the first time and then after a growing pause, so a page that crashes on load does not
 * spin the machine; a quiet minute resets the count.
 */
export class PageRecovery {
  private recent: number[] = [];

  constructor(
    private readonly windowMs = 60_000,
    private readonly maxDelayMs = 10_000,
  ) {}

  /** How long to wait before loading the page again after a failure at `nowMs`. */
  reloadDelayMs(nowMs: number): number {
    this.recent = this.recent.filter((at) => nowMs - at < this.windowMs);
    this.recent.push(nowMs);
    const failures = this.recent.length;
    return failures <= 1 ? 0 : Math.min(this.maxDelayMs, 500 * 2 ** (failures - 2));
  }
}
