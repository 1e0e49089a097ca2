import { createParser } from 'eventsource-parser';
import { API_BASE, type Environment } from '../api.ts';
import type { LiveEvent } from './event.ts';

export type { LiveEvent };

/**
 * `connecting`: the first connection is being made. `open`: events flow. `reconnecting`: the
 * link broke (server restart, network, balancer) and the stream resumes by itself after the
 * last event it had. `ended`: the session ended; nothing will come until sign-in.
 */
export type StreamState = 'connecting' | 'open' | 'reconnecting' | 'ended';

export interface StreamStatus {
  state: StreamState;
  /** When the state began (ms since the epoch). */
  since: number;
  /** What broke, in the server's words when it gave some. */
  detail: string | null;
  /** Whether this tab holds the connection (the others hear it from this one). */
  leader: boolean;
}

export interface StreamListener {
  event(event: LiveEvent): void;
  status(status: StreamStatus): void;
  /**
   * The stream restarted without resuming (its last event was too old to resume from): what a
   * screen holds may have missed changes, so it reads its list again.
   */
  reset(): void;
}

/** No event and no heartbeat comment for this long: the connection is dead even if TCP says not. */
const SILENCE_MS = 45_000;
const BACKOFF_MS = [1_000, 2_000, 4_000, 8_000, 15_000];

/** What the page does when the server refuses the stream for good. */
export interface StreamEndings {
  /** 401: the session ended (idle, signed out elsewhere, person removed everywhere). */
  sessionEnded(): void;
  /** 404: the person no longer belongs to the organization worked in (removed from it, not from the others). */
  organizationLost(): void;
}

type Message =
  | { kind: 'event'; event: LiveEvent }
  | { kind: 'status'; status: StreamStatus }
  | { kind: 'reset' }
  | { kind: 'hello' };

/**
 * The console's one connection to `GET /events/stream` per organization and environment, shared
 * by every tab working in them:
 * a browser allows six connections to one origin, and a control room keeps several tabs open.
 * One tab holds a Web Lock and the connection; it passes every event to the others on a
 * BroadcastChannel. When it closes, another tab takes the lock and resumes from the last event
 * it heard. Where Web Locks are missing (a console served over plain http on a LAN address is
 * not a secure context), each tab keeps its own connection.
 *
 * Read through fetch, not EventSource: the environment and organization headers and
 * `Last-Event-ID` go with it.
 */
export class LiveStream {
  private readonly listeners = new Set<StreamListener>();
  private readonly channel: BroadcastChannel | null;
  private readonly abort = new AbortController();
  private lastEventId: string | null = null;
  private current: StreamStatus = { state: 'connecting', since: Date.now(), detail: null, leader: false };
  private readonly seen = new Set<string>();
  private readonly seenOrder: string[] = [];

  constructor(
    private readonly environment: Environment,
    /** The organization worked in (a person may belong to several): its events only, shared only with tabs working in it too. */
    private readonly organizationId: string,
    private readonly endings: StreamEndings,
  ) {
    const name = `tsaro-console-stream-${organizationId}-${environment}`;
    this.channel = typeof BroadcastChannel === 'function' ? new BroadcastChannel(name) : null;
    this.channel?.addEventListener('message', (message: MessageEvent<Message>) => this.hear(message.data));
    const locks = (navigator as Navigator & { locks?: LockManager }).locks;
    if (locks && this.channel) {
      this.channel.postMessage({ kind: 'hello' } satisfies Message);
      void locks.request(name, { signal: this.abort.signal }, () => this.lead()).catch(() => undefined);
    } else {
      void this.lead();
    }
  }

  subscribe(listener: StreamListener): () => void {
    this.listeners.add(listener);
    listener.status(this.current);
    return () => this.listeners.delete(listener);
  }

  status(): StreamStatus {
    return this.current;
  }

  close(): void {
    this.abort.abort();
    this.channel?.close();
    this.listeners.clear();
  }

  private hear(message: Message): void {
    if (message.kind === 'hello') {
      if (this.current.leader) this.channel?.postMessage({ kind: 'status', status: this.current } satisfies Message);
      return;
    }
    if (message.kind === 'event') this.deliver(message.event);
    else if (message.kind === 'reset') for (const listener of this.listeners) listener.reset();
    else if (!this.current.leader) this.setStatus({ ...message.status, leader: false }, false);
  }

  /** An event once, whichever way it came (a new leader resumes from the last id and may repeat one). */
  private deliver(event: LiveEvent): void {
    this.lastEventId = event.id;
    if (this.seen.has(event.id)) return;
    this.seen.add(event.id);
    this.seenOrder.push(event.id);
    if (this.seenOrder.length > 2_000) this.seen.delete(this.seenOrder.shift()!);
    for (const listener of this.listeners) listener.event(event);
  }

  private setStatus(status: StreamStatus, broadcast: boolean): void {
    this.current = status;
    for (const listener of this.listeners) listener.status(status);
    if (broadcast) this.channel?.postMessage({ kind: 'status', status } satisfies Message);
  }

  private announce(state: StreamState, detail: string | null = null): void {
    if (this.current.state === state && this.current.leader && this.current.detail === detail) return;
    this.setStatus({ state, since: Date.now(), detail, leader: true }, true);
  }

  /** Holds the connection until the page closes or the session ends; resolves to release the lock. */
  private async lead(): Promise<void> {
    let failures = 0;
    this.announce(this.current.state === 'open' ? 'reconnecting' : this.current.state);
    while (!this.abort.signal.aborted) {
      const outcome = await this.connectOnce();
      if (outcome === 'ended' || this.abort.signal.aborted) return;
      if (outcome === 'opened') failures = 0;
      const wait = BACKOFF_MS[Math.min(failures, BACKOFF_MS.length - 1)]! * (0.75 + Math.random() / 2);
      failures += 1;
      await new Promise<void>((done) => {
        const timer = setTimeout(done, wait);
        this.abort.signal.addEventListener('abort', () => (clearTimeout(timer), done()), { once: true });
      });
    }
  }

  /** One connection: `opened` when it carried the stream before it broke, `failed` when it never did. */
  private async connectOnce(): Promise<'opened' | 'failed' | 'ended'> {
    const connection = new AbortController();
    const stop = () => connection.abort();
    this.abort.signal.addEventListener('abort', stop, { once: true });
    let silence: ReturnType<typeof setTimeout> | undefined;
    const heard = () => {
      clearTimeout(silence);
      silence = setTimeout(() => connection.abort(), SILENCE_MS);
    };
    const headers: Record<string, string> = { accept: 'text/event-stream', 'tsaro-environment': this.environment, 'tsaro-organization': this.organizationId };
    if (this.lastEventId) headers['last-event-id'] = this.lastEventId;
    try {
      heard();
      const response = await fetch(`${API_BASE}/events/stream`, { headers, credentials: 'same-origin', cache: 'no-store', signal: connection.signal });
      if (response.status === 401) {
        this.announce('ended', 'Your session ended.');
        this.endings.sessionEnded();
        return 'ended';
      }
      if (response.status === 404) {
        // Only a session's organization is a 404 here: the page opens another, with a stream of its own.
        this.announce('reconnecting', 'You are no longer a member of this organization.');
        this.endings.organizationLost();
        return 'ended';
      }
      if (!response.ok || !response.body) {
        const body = (await response.json().catch(() => null)) as { message?: string } | null;
        if ((response.status === 400 || response.status === 410) && this.lastEventId) {
          // Not resumable (unknown to the server, 400, or older than 72 h, 410): start now, and let screens read their lists again.
          this.lastEventId = null;
          this.channel?.postMessage({ kind: 'reset' } satisfies Message);
          for (const listener of this.listeners) listener.reset();
        }
        this.announce('reconnecting', body?.message ?? `The server answered ${response.status}.`);
        return 'failed';
      }
      this.announce('open');
      const parser = createParser({
        onEvent: (message) => {
          heard();
          let event: LiveEvent;
          try {
            event = JSON.parse(message.data) as LiveEvent;
          } catch {
            return;
          }
          this.channel?.postMessage({ kind: 'event', event } satisfies Message);
          this.deliver(event);
        },
        onComment: heard,
      });
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        heard();
        parser.feed(value);
      }
      if (!this.abort.signal.aborted) this.announce('reconnecting', 'The server closed the stream.');
      return 'opened';
    } catch {
      if (this.abort.signal.aborted) return 'ended';
      const opened = this.current.state === 'open';
      this.announce('reconnecting', 'The connection to the server broke.');
      return opened ? 'opened' : 'failed';
    } finally {
      clearTimeout(silence);
      this.abort.signal.removeEventListener('abort', stop);
    }
  }
}
