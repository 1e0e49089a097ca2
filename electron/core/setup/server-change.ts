import { createHash } from 'node:crypto';
import { forgetCodes } from '../caches/codes.ts';
import { forgetPassKeys } from '../caches/pass-keys.ts';
import { forgetSite } from '../caches/site.ts';
import type { KioskDb } from '../database.ts';
import { forgetServerVisitors } from '../gate/visits-store.ts';
import { forgetCoverage } from '../link/coverage.ts';
import { countPendingOperations } from '../outbox/store.ts';
import { closeFollowedPanics } from '../panic/store.ts';
import { deleteSetting, readSetting, writeSetting } from '../settings-store.ts';
import type { KioskSettings } from './settings.ts';

/**
 * Which server and organization the kiosk's cache belongs to. Another server or key may be
 * another organization: at start (the environment's settings) and at set-up, the cache is then
 * forgotten, and a queue still waiting keeps the kiosk where it is.
 */

/** Which server and key the cache belongs to: a hash, so the key itself is not kept a second time. */
export function serverFingerprint(settings: Pick<KioskSettings, 'serverUrl' | 'apiKey'>): string {
  return createHash('sha256').update(`${settings.serverUrl}\n${settings.apiKey}`).digest('hex');
}

/** The key alone: it belongs to one organization, whatever address the server is reached at. */
function keyFingerprint(settings: Pick<KioskSettings, 'apiKey'>): string {
  return createHash('sha256').update(`key\n${settings.apiKey}`).digest('hex');
}

export const FINGERPRINT_SETTING = 'server_fingerprint';
const KEY_FINGERPRINT_SETTING = 'key_fingerprint';
export const MOVED_WITH_PENDING = 'Operations are still waiting to reach the current server; sync them before moving this kiosk';

export function writeFingerprints(db: KioskDb, settings: KioskSettings): void {
  writeSetting(db, FINGERPRINT_SETTING, serverFingerprint(settings));
  writeSetting(db, KEY_FINGERPRINT_SETTING, keyFingerprint(settings));
}

/**
 * Another server or key may be another organization: its codes, pass keys, visitors, feed
 * cursor and site are not ours, and the incidents it holds are not readable with the new key.
 * In the caller's transaction.
 */
export function forgetServer(db: KioskDb, at: string): void {
  forgetCodes(db);
  forgetPassKeys(db);
  forgetServerVisitors(db);
  forgetSite(db);
  forgetCoverage(db);
  deleteSetting(db, 'last_sync_at');
  closeFollowedPanics(db, at);
}

/**
 * Whether settings proposed by the setup screen point at another server or key than the cache's
 * (then the cache is forgotten); before fingerprints were kept, compared with the settings in use.
 */
export function movesElsewhere(db: KioskDb, previous: KioskSettings | undefined, next: KioskSettings): boolean {
  const stored = readSetting(db, FINGERPRINT_SETTING);
  if (stored !== undefined) return stored !== serverFingerprint(next);
  return previous !== undefined && (previous.serverUrl !== next.serverUrl || previous.apiKey !== next.apiKey);
}

/**
 * At start: the cache is the settings' server's, or (another server or key, given by the
 * environment) it is wiped, as `configure` does. With operations waiting: another key (maybe
 * another organization) is refused; the same key at another address (the same organization,
 * the server reached another way) keeps the queue and the cache, so a kiosk whose old address
 * is gone can still deliver. A cache from before fingerprints were kept is wiped when nothing
 * waits (it is fetched again), and otherwise adopted.
 */
export function adoptServer(db: KioskDb, settings: KioskSettings | undefined, at: string): void {
  if (!settings) return;
  const stored = readSetting(db, FINGERPRINT_SETTING);
  if (stored === serverFingerprint(settings)) return;
  const storedKey = readSetting(db, KEY_FINGERPRINT_SETTING);
  const pending = countPendingOperations(db) > 0;
  if (pending && storedKey !== undefined && storedKey !== keyFingerprint(settings)) {
    throw new Error(`The KIOSK_* settings give this kiosk another API key. ${MOVED_WITH_PENDING} (start it with the previous settings until "Waiting to send" reads 0)`);
  }
  db.transaction(() => {
    if (!pending) forgetServer(db, at);
    writeFingerprints(db, settings);
  })();
}
