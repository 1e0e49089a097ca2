import { isConnectionLost, isDatabaseUnavailable } from './errors.ts';

/**
 * Runs work that is safe to repeat (a read, an idempotent delete, a compare-and-set sweep step)
 * again after a lost or refused connection: a few tries a moment apart, each on a fresh
 * connection from the pool. A statement timeout is not retried: the caller's wait stays bounded.
 */
export async function repeatable<T>(work: () => Promise<T>, tries = 3, delayMs = 50): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (err) {
      const transient = isConnectionLost(err) || (isDatabaseUnavailable(err) && (err as { code?: unknown }).code !== '57014');
      if (!transient || attempt >= tries) throw err;
      await new Promise((resolve) => setTimeout(resolve, delayMs * attempt));
    }
  }
}
