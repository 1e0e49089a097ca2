import { KioskCallError } from '../../../shared/kiosk/calls.ts';
import type { KioskSettings } from '../setup/settings.ts';
import type { ServerAnswer, ServerApi } from './server-api.ts';
import { createServerApi } from './server-api.ts';

/** The network as the kiosk last saw it. */
export interface NetworkState {
  /** null: not tried yet. */
  online: boolean | null;
  lastContactAt: string | null;
  problem: string | null;
}

export interface LinkOptions {
  fetch: typeof fetch;
  requestTimeoutMs: number;
  nowIso(): string;
  /** What an installer reading the host's log wants to know happened (the link dropping or returning). */
  logEvent(message: string): void;
}

/**
 * The kiosk's link to its server, and the only mutable state the core's rooms share: the
 * settings in use and the client made from them, what the network last did, the key's admin
 * check, and the requests out right now. One per core; every room reads it, only the link's own
 * methods (and set-up's `use`) change it.
 */
export class Link {
  settings: KioskSettings | undefined;
  /** Where the settings came from: the environment (KIOSK_*), the first-run setup, or none yet. */
  source: 'environment' | 'setup' | null;
  api: ServerApi | undefined;
  net: NetworkState = { online: null, lastContactAt: null, problem: null };
  /** The last key proven (or found) admin or not by `checkKeyNotAdmin`: keys' scopes never change, so once a run. */
  keyCheck: { apiKey: string; admin: boolean } | undefined;
  /** Operations (and SOS presses, reports) a request is out for right now: the sync loop leaves them alone. */
  readonly inFlight = new Set<string>();

  constructor(
    private readonly options: LinkOptions,
    settings: KioskSettings | undefined,
    source: 'environment' | 'setup' | null,
  ) {
    this.source = source;
    this.use(settings);
  }

  /** The settings from now on, and a client for them. */
  use(settings: KioskSettings | undefined): void {
    this.settings = settings;
    this.api = settings
      ? createServerApi({ serverUrl: settings.serverUrl, apiKey: settings.apiKey, fetch: this.options.fetch, timeoutMs: this.options.requestTimeoutMs })
      : undefined;
  }

  /** The settings, or the guard is told the kiosk is not set up (412). */
  requireSettings(): KioskSettings {
    if (!this.settings) throw new KioskCallError(412, 'This kiosk is not set up yet: run the setup first');
    return this.settings;
  }

  /** Called when the server answered (whatever it said) or could not be reached. */
  noteContact(reached: boolean): void {
    const where = this.settings?.serverUrl ?? 'no server';
    if (reached && this.net.online === false) this.options.logEvent(`the server answers again (${where})`);
    if (!reached && this.net.online !== false) this.options.logEvent(`the server cannot be reached (${where}); working offline`);
    if (reached) {
      this.net.online = true;
      this.net.lastContactAt = this.options.nowIso();
    } else {
      this.net.online = false;
    }
  }

  /** The same, from an answer: anything but "no answer at all" is contact. */
  noteAnswer(answer: ServerAnswer): void {
    this.noteContact(answer.kind !== 'unavailable' || answer.status !== null);
  }

  /** Worth asking the server first: it answered last time, or has not been tried yet. */
  tryServerFirst(): boolean {
    return this.api !== undefined && this.net.online !== false && this.net.problem === null;
  }

  /**
   * Runs `work` (a request and the commit of its answer) with `id` marked in flight, so the sync
   * loop leaves it alone until the answer is committed, not merely received.
   */
  async whileInFlight<T>(id: string, work: () => Promise<T>): Promise<T> {
    this.inFlight.add(id);
    try {
      return await work();
    } finally {
      this.inFlight.delete(id);
    }
  }
}
