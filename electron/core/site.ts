import type { CoreContext } from './context.ts';
import { deleteSetting, readJsonSetting, writeJsonSetting } from './settings.ts';

const SITE_SETTING = 'site';

/** The site this kiosk's gate belongs to, as the server's last heartbeat answer said (issue #34). */
export interface KioskSite {
  site_id: string;
  name: string;
  /** Whom to call, in order: E.164 numbers. */
  call_list: Array<{ name: string; phone: string }>;
}

/** Kept from each heartbeat answer, so an SOS screen offline still shows the site's numbers. */
export function rememberSite(ctx: Pick<CoreContext, 'db'>, site: KioskSite | null | undefined): void {
  if (site) writeJsonSetting(ctx.db, SITE_SETTING, site);
  else if (site === null) deleteSetting(ctx.db, SITE_SETTING);
}

export function readSite(ctx: Pick<CoreContext, 'db'>): KioskSite | null {
  return readJsonSetting<KioskSite>(ctx.db, SITE_SETTING) ?? null;
}

/**
 * Whom the guard calls when help is not coming: the site's call list from the server when it has
 * one, else the kiosk's own KIOSK_ALARM_PHONES (a kiosk never heard back from, or a site whose
 * list is empty).
 */
export function alarmPhonesOf(ctx: Pick<CoreContext, 'db' | 'settings'>): string | null {
  const site = readSite(ctx);
  if (site && site.call_list.length) return site.call_list.map((entry) => `${entry.name} ${entry.phone}`).join(', ');
  return ctx.settings?.alarmPhones ?? null;
}
