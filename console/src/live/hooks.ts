import { useEffect, useRef, useState } from 'react';
import { useConsole } from '../context.tsx';
import type { LiveEvent, StreamStatus } from './stream.ts';

/**
 * Calls `onEvent` for every event the stream brings while the screen is shown, and `onReset`
 * when the stream restarted without resuming (the screen reads its list again). The handlers
 * may change between renders; the subscription does not.
 */
export function useLiveEvents(onEvent: (event: LiveEvent) => void, onReset?: () => void): void {
  const { live } = useConsole();
  const handlers = useRef({ onEvent, onReset });
  handlers.current = { onEvent, onReset };
  useEffect(
    () =>
      live.subscribe({
        event: (event) => handlers.current.onEvent(event),
        status: () => undefined,
        reset: () => handlers.current.onReset?.(),
      }),
    [live],
  );
}

export function useStreamStatus(): StreamStatus {
  const { live } = useConsole();
  const [status, setStatus] = useState(() => live.status());
  useEffect(() => live.subscribe({ event: () => undefined, status: setStatus, reset: () => undefined }), [live]);
  return status;
}

/** The current time, again every `everyMs`: for ages and countdowns. */
export function useNow(everyMs = 1_000): number {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}
