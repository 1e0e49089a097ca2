import { createParser } from 'eventsource-parser';
import type { ConsoleBrowser } from './console.ts';

export interface LiveMessage {
  event: string;
  data: any;
}

/** An open GET /v1/staff/live as a staff browser holds it: the messages so far, and a wait for one that matches. */
export interface LiveStream {
  status: number;
  messages: LiveMessage[];
  /** Resolves with the first message (already received or to come) that matches; rejects after `ms`. */
  next(match: (message: LiveMessage) => boolean, ms?: number): Promise<LiveMessage>;
  close(): void;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
}

export async function openLive(browser: ConsoleBrowser): Promise<LiveStream> {
  const abort = new AbortController();
  const response = await fetch(`${browser.baseUrl}/live`, { headers: { ...(browser.cookie && { cookie: browser.cookie }), origin: browser.origin }, signal: abort.signal });
  const messages: LiveMessage[] = [];
  const waiters = new Set<() => void>();
  if (response.status !== 200) {
    await response.text();
    return { status: response.status, messages, next: () => Promise.reject(new Error(`stream refused: ${response.status}`)), close: () => abort.abort(), ended: Promise.resolve() };
  }
  const parser = createParser({
    onEvent(event) {
      messages.push({ event: event.event ?? 'message', data: JSON.parse(event.data) });
      for (const wake of [...waiters]) wake();
    },
  });
  const ended = (async () => {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of response.body!) parser.feed(decoder.decode(chunk as Uint8Array, { stream: true }));
    } catch {
      // aborted
    }
  })();
  return {
    status: 200,
    messages,
    next(match, ms = 15_000) {
      return new Promise((resolve, reject) => {
        let seen = 0;
        const look = () => {
          for (; seen < messages.length; seen++) {
            if (match(messages[seen]!)) {
              waiters.delete(look);
              clearTimeout(timer);
              resolve(messages[seen]!);
              return;
            }
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(look);
          reject(new Error(`no matching message in ${ms} ms; got ${messages.map((m) => m.event).join(', ')}`));
        }, ms);
        waiters.add(look);
        look();
      });
    },
    close: () => abort.abort(),
    ended,
  };
}

/** A responder as the channel last said it: from the snapshot, then every `responders` message. */
export function responderIn(message: LiveMessage, responderId: string): any {
  return (message.data.responders as any[] | undefined)?.find((r) => r.responder_id === responderId);
}
