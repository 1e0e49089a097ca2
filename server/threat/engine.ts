import type { Logger } from 'pino';
import type { Db } from '../db/schema.ts';
import { dayNumber, ThreatIndex } from './event-index.ts';
import { currentThreatRevision, threatEventsBetween } from './store.ts';
import { computeDangerZones, type DangerZone } from './zones.ts';

/**
 * Keeps the in-memory index in step with the threat_events table: built at start, then
 * `refresh()` (run by the sweep every second, and after this host writes events) reads the one
 * revision counter and loads only the events of newer revisions. Queries use `current()`, an
 * immutable snapshot, so a refresh never changes an answer half way.
 */
export interface ThreatEngine {
  current(): ThreatIndex;
  /** Loads what was written since the last load; true when the index changed. */
  refresh(): Promise<boolean>;
  /**
   * The danger zones as of `now`'s day, computed once per index and day, in slices that let
   * other requests through (seconds for a million events; the sweep starts it ahead of time).
   */
  dangerZones(now: Date): Promise<DangerZone[]>;
}

export async function createThreatEngine(db: Db, logger: Logger): Promise<ThreatEngine> {
  let index = ThreatIndex.build([], 0);
  let queue: Promise<unknown> = Promise.resolve();
  let zones: { index: ThreatIndex; day: number; zones: Promise<DangerZone[]> } | undefined;

  async function load(): Promise<boolean> {
    const { revision, rebuild } = await currentThreatRevision(db);
    if (revision <= index.revision) return false;
    const started = performance.now();
    const before = index.size;
    // A write since the last load replaced stored events (a newer UCDP release): the index only appends, so read everything again.
    if (index.size === 0 || rebuild > index.revision) {
      index = await ThreatIndex.fromPages(threatEventsBetween(db, 0, revision), revision);
    } else {
      index = await index.withAddedPages(threatEventsBetween(db, index.revision, revision), revision);
    }
    logger.info({ events: index.size, added: index.size - before, revision, ms: Math.round(performance.now() - started) }, 'threat index updated');
    return true;
  }

  const engine: ThreatEngine = {
    current: () => index,
    dangerZones(now) {
      const day = dayNumber(now);
      if (zones?.index !== index || zones.day !== day) {
        const computing = computeDangerZones(index, now);
        zones = { index, day, zones: computing };
        // A failure is not kept: the next call computes again.
        computing.catch(() => {
          if (zones?.zones === computing) zones = undefined;
        });
      }
      return zones.zones;
    },
    refresh() {
      // One load at a time: a refresh asked for during a load runs after it and looks again.
      const next = queue.then(load);
      queue = next.catch(() => undefined);
      return next;
    },
  };
  await engine.refresh();
  return engine;
}
