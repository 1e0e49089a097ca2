/**
 * Cleanups that must run even when the run is cut short (SIGINT, SIGTERM, watchdog): dropping a
 * database, removing a temporary directory. Normal paths run their cleanup themselves and
 * unregister it; `runCleanups` runs whatever is still registered, newest first.
 */
const pending = new Set<{ label: string; work: () => Promise<void> }>();

/** Registers `work`; returns a function that runs it at most once and unregisters it. */
export function registerCleanup(label: string, work: () => Promise<void>): () => Promise<void> {
  const entry = { label, work };
  pending.add(entry);
  let done: Promise<void> | undefined;
  return () => {
    pending.delete(entry);
    done ??= work();
    return done;
  };
}

/** Runs every cleanup still registered; failures are reported, not thrown. */
export async function runCleanups(log: (line: string) => void = () => undefined): Promise<void> {
  for (const entry of [...pending].reverse()) {
    pending.delete(entry);
    try {
      await entry.work();
    } catch (err) {
      log(`cleanup ${entry.label} failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}
