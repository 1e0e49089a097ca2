import { phoneForReading } from '../../../shared/phone.ts';
import { restartCodeFeed } from './codes.ts';
import type { CoreContext } from '../context.ts';
import type { KioskDb } from '../database.ts';
import { deleteSetting, readJsonSetting, readSetting, writeJsonSetting, writeSetting } from '../settings-store.ts';
import { type KioskSettings } from '../setup/settings.ts';

const SITE_SETTING = 'site';
/** The site the code cache was read for ('' none); absent: a cache from before codes carried their site. */
const CACHE_SITE_SETTING = 'codes_site';

/** The site this kiosk's gate belongs to, as the server's last heartbeat answer said (issue #34). */
export interface KioskSite {
  site_id: string;
  name: string;
  /** Whom to call, in order: E.164 numbers; `texted: false` for those alarm texts never reach (issue #48). */
  call_list: Array<{ name: string; phone: string; texted?: boolean }>;
}

/** Kept from each heartbeat answer, so an SOS screen offline still shows the site's numbers. */
export function rememberSite(ctx: Pick<CoreContext, 'db'>, site: KioskSite | null | undefined): void {
  if (site) writeJsonSetting(ctx.db, SITE_SETTING, site);
  else if (site === null) deleteSetting(ctx.db, SITE_SETTING);
}

export function readSite(ctx: Pick<CoreContext, 'db'>): KioskSite | null {
  return readJsonSetting<KioskSite>(ctx.db, SITE_SETTING) ?? null;
}

/** Another server's site is not ours, nor the site the code cache was read for. */
export function forgetSite(db: KioskDb): void {
  deleteSetting(db, SITE_SETTING);
  deleteSetting(db, CACHE_SITE_SETTING);
}

/**
 * Whom the guard calls when help is not coming: the site's call list from the server when it has
 * one (each number as the guard dials it by hand: 0803 111 2222, not +2348031112222), else the kiosk's own KIOSK_ALARM_PHONES (a kiosk never heard back from, or a site whose
 * list is empty).
 */
export function alarmPhonesOf(ctx: Pick<CoreContext, 'db'>, settings: KioskSettings | undefined): string | null {
  const site = readSite(ctx);
  if (site && site.call_list.length) return site.call_list.map((entry) => `${entry.name} ${phoneForReading(entry.phone)}`).join(', ');
  return settings?.alarmPhones ?? null;
}

/** The site's numbers the server says it never texts (112, a landline): the guard calls them. Null when none, or unknown. */
export function untextedPhonesOf(ctx: Pick<CoreContext, 'db'>): string | null {
  const untexted = (readSite(ctx)?.call_list ?? []).filter((entry) => entry.texted === false);
  return untexted.length ? untexted.map((entry) => `${entry.name} ${phoneForReading(entry.phone)}`).join(', ') : null;
}

/** The kiosk's site id, or null while it knows none (it then admits every site's codes, as before sites). */
export function siteIdOf(ctx: Pick<CoreContext, 'db'>): string | null {
  return readSite(ctx)?.site_id ?? null;
}

/** True when the kiosk's site is not the one its code cache was read for: the cache is to be read again. */
export function cacheBehindSite(ctx: Pick<CoreContext, 'db'>): boolean {
  return readSetting(ctx.db, CACHE_SITE_SETTING) !== (siteIdOf(ctx) ?? '');
}

/**
 * A kiosk whose site is set or changed (a heartbeat answer names it) empties its code cache and
 * reads the feed again from the start (caches/codes.ts, `restartCodeFeed`): what it
 * holds was read for another site, or before codes carried their site. Called by the sync, once
 * the server answers, so a kiosk offline keeps deciding from what it has. True when it did.
 */
export function cacheFollowsSite(ctx: Pick<CoreContext, 'db'>): boolean {
  if (!cacheBehindSite(ctx)) return false;
  const site = siteIdOf(ctx) ?? '';
  ctx.db.transaction(() => {
    restartCodeFeed(ctx.db);
    writeSetting(ctx.db, CACHE_SITE_SETTING, site);
  })();
  return true;
}
