import type { Schemas } from '../api.ts';
import type { Incident } from '../live/incidents.ts';

export type Site = Schemas['Site'];

/** What the switcher offers: the sites not archived, within the person's sites when limited. */
export function choicesFor(sites: readonly Site[], limited: readonly string[] | null): Site[] {
  return sites.filter((site) => !site.archived_at && (!limited || limited.includes(site.site_id)));
}

/**
 * The site the screens show, from the choice kept in the browser: null is every site. A choice
 * the switcher no longer offers (archived, unknown, not the person's) falls back to every site,
 * or, for a person limited to sites, to their first. With one site to offer there is nothing to
 * choose, and no filter for a person who may see every site.
 */
export function resolveChoice(saved: string | null, choices: readonly Site[], mayChooseAll: boolean): Site | null {
  if (mayChooseAll && choices.length <= 1) return null;
  return choices.find((site) => site.site_id === saved) ?? (mayChooseAll ? null : (choices[0] ?? null));
}

/** Where the choice is kept: per organization, since a person may belong to several. */
export const siteChoiceKey = (organizationId: string): string => `tsaro.console.site.${organizationId}`;

/**
 * The site an incident belongs to: the one it names; for an incident that names none (raised
 * before sites, or by a partner away from any gate), the site one of whose gates it names, else
 * the default site, where what names no site belongs.
 */
export function siteOfIncident(incident: Pick<Incident, 'site_id'>, entryPoint: string | null, sites: readonly Site[]): Site | undefined {
  if (incident.site_id) return sites.find((site) => site.site_id === incident.site_id);
  const gate = entryPoint?.trim();
  // A gate's name now or before a rename: a kiosk set up before it still sends the old one.
  return (gate && sites.find((site) => site.entry_points.some((entry) => entry.name === gate || entry.former_names.includes(gate)))) || sites.find((site) => site.is_default);
}
