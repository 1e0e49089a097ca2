import { expect, vi } from 'vitest';

/** One server-sent event as a client reads it. */
export interface StreamedEvent {
  id: string;
  event: string;
  data: any;
  /** When the client read it (performance.now()). */
  at: number;
}

export interface OpenStream {
  status: number;
  headers: Headers;
  /** The answer's body when it is not a stream (an error). */
  body: any;
  events: StreamedEvent[];
  comments: string[];
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  readonly isEnded: boolean;
  /** Waits until `count` events have arrived (5 s bound). */
  waitForEvents(count: number, timeoutMs?: number): Promise<StreamedEvent[]>;
  close(): void;
}

/**
 * Opens `GET {baseUrl}{path}` as an EventSource would and parses its frames (the SSE format:
 * `field: value` lines, a blank line ends an event, `:` starts a comment). Resolves once the
 * head has arrived and, for a stream, its first frame (the server has registered the stream).
 */
export async function openStream(url: string, headers: Record<string, string> = {}): Promise<OpenStream> {
  const controller = new AbortController();
  const response = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: controller.signal });
  const events: StreamedEvent[] = [];
  const comments: string[] = [];
  let isEnded = false;
  if (!response.headers.get('content-type')?.startsWith('text/event-stream')) {
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // left as text
    }
    return { status: response.status, headers: response.headers, body, events, comments, ended: Promise.resolve(), isEnded: true, waitForEvents: async () => events, close: () => undefined };
  }
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  let firstFrame!: () => void;
  const opened = new Promise<void>((resolve) => (firstFrame = resolve));
  const parse = () => {
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const fields: Record<string, string> = {};
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) comments.push(line.slice(1).trim());
        else {
          const colon = line.indexOf(':');
          fields[line.slice(0, colon)] = line.slice(colon + 1).replace(/^ /, '');
        }
      }
      if (fields.data !== undefined) events.push({ id: fields.id!, event: fields.event!, data: JSON.parse(fields.data), at: performance.now() });
      firstFrame();
    }
  };
  const ended = (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        buffer += value;
        parse();
      }
    } catch {
      // aborted by close()
    } finally {
      isEnded = true;
      firstFrame();
    }
  })();
  await opened;
  return {
    status: response.status,
    headers: response.headers,
    body: undefined,
    events,
    comments,
    ended,
    get isEnded() {
      return isEnded;
    },
    async waitForEvents(count, timeoutMs = 5_000) {
      await vi.waitFor(() => expect(events.length).toBeGreaterThanOrEqual(count), { timeout: timeoutMs, interval: 10 });
      return events;
    },
    close: () => controller.abort(),
  };
}
