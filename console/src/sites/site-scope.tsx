import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { useConsole, useLoad } from '../context.tsx';
import { entryPointOf, type Incident } from '../live/incidents.ts';
import { readAllPages } from '../lists/read-all-pages.ts';
import { usePath } from '../router.tsx';
import { choicesFor, resolveChoice, siteChoiceKey, siteOfIncident, type Site } from './site-choice.ts';

/** More sites than a company guards. */
const MOST_SITES = 1_000;
/** A wall screen that stays on the board still learns of a call list changed elsewhere this soon. */
const REFRESH_MS = 60_000;

/** Which site the console shows (the top bar's switcher), and the sites it knows. */
export interface SiteScope {
  /** False until the sites have answered (or failed): screens wait, so none reads every site first. */
  ready: boolean;
  /** Every site the person may see, archived ones too (an incident's site may be archived since). */
  sites: readonly Site[];
  /** What the switcher offers: the sites not archived, within the person's sites. */
  choices: readonly Site[];
  /** Whether "All sites" is offered: the person's role is not limited to listed sites. */
  mayChooseAll: boolean;
  /** The chosen site; null: every site the person may see. */
  chosen: Site | null;
  /** What a list sends as `site_id`: undefined for every site. */
  siteId: string | undefined;
  choose: (siteId: string | null) => void;
  /** The site an incident belongs to (sites/site-choice.ts). */
  siteOf: (incident: Incident) => Site | undefined;
  /** Reads the sites again: after one is added, changed or archived. */
  reload: () => void;
  error: string | null;
}

const Scope = createContext<SiteScope | null>(null);

export function useSiteScope(): SiteScope {
  const value = useContext(Scope);
  if (!value) throw new Error('useSiteScope outside the site scope');
  return value;
}

/**
 * Reads the organization's sites (again as each screen opens, and every minute: an admin may
 * change a call list or add a site from elsewhere) and keeps the person's choice, per
 * organization, in the browser: it survives a reload; a choice no longer offered falls back to
 * every site.
 */
export function SiteScopeProvider({ children }: { children: ReactNode }) {
  const { session } = useConsole();
  const key = siteChoiceKey(session.organization.organization_id);
  const [saved, setSaved] = useState(() => localStorage.getItem(key));
  const path = usePath();
  const loaded = useLoad((client) => readAllPages(client, '/sites', {}, MOST_SITES), [path]);
  const { reload } = loaded;
  useEffect(() => {
    const timer = setInterval(reload, REFRESH_MS);
    return () => clearInterval(timer);
  }, [reload]);
  // The sites the person's role is limited to; null: every site.
  const limited = session.person.site_ids;
  const limitKey = limited?.join(',') ?? null;
  const value = useMemo<SiteScope>(() => {
    const sites = loaded.data?.items ?? [];
    const choices = choicesFor(sites, limited);
    const mayChooseAll = limited === null;
    const chosen = resolveChoice(saved, choices, mayChooseAll);
    return {
      ready: loaded.data !== undefined || loaded.error !== null,
      sites,
      choices,
      mayChooseAll,
      chosen,
      siteId: chosen?.site_id,
      choose: (siteId) => {
        if (siteId) localStorage.setItem(key, siteId);
        else localStorage.removeItem(key);
        setSaved(siteId);
      },
      siteOf: (incident) => siteOfIncident(incident, entryPointOf(incident), sites),
      reload: loaded.reload,
      error: loaded.error,
    };
    // `limitKey` stands for `limited`, a new array at every render.
  }, [loaded.data, loaded.error, loaded.reload, limitKey, saved, key]);
  return <Scope.Provider value={value}>{children}</Scope.Provider>;
}

/** A site's name where a screen lists every site's things, so each says where it is; nothing when one site is shown. */
export function useSiteName(): (siteId: string | null) => string | null {
  const { chosen, choices, sites } = useSiteScope();
  const named = chosen === null && choices.length > 1;
  return useCallback((siteId) => (named && siteId ? (sites.find((site) => site.site_id === siteId)?.name ?? null) : null), [named, sites]);
}
