import type { GateCoverage } from '../../../shared/kiosk/calls.ts';
import type { CoreContext } from '../context.ts';
import type { KioskDb } from '../database.ts';
import { deleteSetting, readJsonSetting, writeJsonSetting } from '../settings-store.ts';
import { type KioskSettings } from '../setup/settings.ts';

/** What the coverage check reads and writes. */
export type CoverageDeps = Pick<CoreContext, 'db' | 'link' | 'nowIso' | 'timings'>;

const COVERAGE_SETTING = 'coverage';

interface StoredCoverage extends GateCoverage {
  /** Where it was asked for: a kiosk set up at another place must not show this place's answer. */
  latitude: number;
  longitude: number;
}

/** The last answer for the gate's own place, or null: never asked, or the gate moved since. */
export function readCoverage(db: KioskDb, settings: KioskSettings | undefined): GateCoverage | null {
  const stored = readJsonSetting<StoredCoverage>(db, COVERAGE_SETTING);
  if (!stored || !settings || stored.latitude !== settings.latitude || stored.longitude !== settings.longitude) return null;
  const { latitude: _latitude, longitude: _longitude, ...coverage } = stored;
  return coverage;
}

export function forgetCoverage(db: KioskDb): void {
  deleteSetting(db, COVERAGE_SETTING);
}

/**
 * Asks the server whether any on-duty responder covers the gate (`GET /dispatch/coverage`), so
 * the guard learns before an emergency, not after the dispatch window, that an SOS reaches the
 * estate's numbers only. An unanswered check keeps the last answer; a server without the route
 * (404) or a key without the scope leaves it unknown, which the screens do not turn into a warning.
 */
export async function checkCoverage(ctx: CoverageDeps): Promise<void> {
  const api = ctx.link.api;
  const settings = ctx.link.settings;
  if (!api || !settings) return;
  const answer = await api.call('get', '/dispatch/coverage', {
    params: { query: { latitude: settings.latitude, longitude: settings.longitude } },
    timeoutMs: ctx.timings.requestTimeoutMs,
  });
  ctx.link.noteAnswer(answer);
  if (answer.kind === 'ok') {
    const coverage = answer.body.coverage;
    const stored: StoredCoverage = {
      covered: coverage.covered,
      simulated: coverage.simulated,
      respondersWithinRadius: coverage.responders_within_radius,
      nearestKm: coverage.nearest_responder_km,
      radiusKm: coverage.dispatch_radius_km,
      checkedAt: ctx.nowIso(),
      latitude: settings.latitude,
      longitude: settings.longitude,
    };
    writeJsonSetting(ctx.db, COVERAGE_SETTING, stored);
  } else if (answer.kind !== 'unavailable') {
    forgetCoverage(ctx.db);
  }
}
