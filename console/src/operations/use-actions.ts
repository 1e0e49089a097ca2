import { useState } from 'react';

/**
 * A staff screen's actions (take, offer, verify, ...): each clears the last error, says what it
 * did, and reads the screen again; a failure is shown in words. One rule for the queue, the
 * incident and the roster.
 */
export function useActions() {
  const [said, setSaid] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const failed = (failure: unknown) => setError(failure instanceof Error ? failure.message : String(failure));
  const run = async (action: () => Promise<string>, then: () => Promise<void>) => {
    setError(null);
    try {
      setSaid(await action());
      await then();
    } catch (failure) {
      failed(failure);
    }
  };
  return { said, error, failed, run };
}
