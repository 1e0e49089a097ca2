import { ApiError } from '../http/errors.ts';

/** The ceilings on open event streams, per host (STREAM_MAX_PER_KEY, STREAM_MAX_PER_HOST). */
export interface StreamLimits {
  /** Streams one key, or one person, may hold open on this host. */
  maxPerCaller: number;
  /** Streams this host holds open in all. */
  maxPerHost: number;
  /** How often each open stream asks again whether its caller may still read. */
  recheckMs: number;
}

export interface OpenStream {
  /** `key:<id>` or `person:<id>`: whose stream it is. */
  caller: string;
  /** Authenticates the caller again; closes the stream when it may no longer read. */
  recheck(): Promise<void>;
}

export interface StreamRegistry {
  /** Admits a stream, or throws the 429 naming the ceiling it met; the answer removes it again (once). */
  admit(stream: OpenStream): () => void;
  /** Streams open on this host now. */
  readonly size: number;
}

/** Seconds a refused caller is told to wait: a stream elsewhere may close in that time. */
const RETRY_AFTER_S = 5;

/**
 * The host's open event streams: the ceilings, and one timer (running only while a stream is
 * open) that has every stream ask again each `recheckMs` whether its key or person may still
 * read, so a revoked key's or a removed person's streams close within that, not at the next
 * 15 s heartbeat. A key's recheck reads the key cache; a person's, their session.
 */
export function createStreamRegistry(limits: StreamLimits): StreamRegistry {
  const open = new Set<OpenStream>();
  const perCaller = new Map<string, number>();
  const inFlight = new WeakSet<OpenStream>();
  let timer: NodeJS.Timeout | undefined;

  const recheckAll = () => {
    for (const stream of open) {
      if (inFlight.has(stream)) continue;
      inFlight.add(stream);
      void stream.recheck().finally(() => inFlight.delete(stream));
    }
  };

  return {
    admit(stream) {
      const held = perCaller.get(stream.caller) ?? 0;
      if (held >= limits.maxPerCaller) {
        throw new ApiError(429, `Too many open event streams for this caller (${limits.maxPerCaller} on this host): close one, or share one stream between tabs`, {
          'Retry-After': String(RETRY_AFTER_S),
        });
      }
      if (open.size >= limits.maxPerHost) {
        throw new ApiError(429, `This host holds its most event streams (${limits.maxPerHost}): retry shortly`, { 'Retry-After': String(RETRY_AFTER_S) });
      }
      open.add(stream);
      perCaller.set(stream.caller, held + 1);
      if (!timer) {
        timer = setInterval(recheckAll, limits.recheckMs);
        timer.unref();
      }
      let left = false;
      return () => {
        if (left) return;
        left = true;
        open.delete(stream);
        const remaining = (perCaller.get(stream.caller) ?? 1) - 1;
        if (remaining > 0) perCaller.set(stream.caller, remaining);
        else perCaller.delete(stream.caller);
        if (open.size === 0 && timer) {
          clearInterval(timer);
          timer = undefined;
        }
      };
    },
    get size() {
      return open.size;
    },
  };
}
