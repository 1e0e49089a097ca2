import { useState } from 'react';
import { useSiteScope } from './site-scope.tsx';
import type { Site } from './site-choice.ts';

/**
 * How far a key, a person's role or a webhook endpoint reaches (`site_ids`, docs/api.md, "Keys,
 * people and endpoints limited to sites"): null, every site (and those added later); else these.
 */
export type SiteLimit = readonly string[] | null;

/** What a form refuses before sending: "only these sites" with none ticked. */
export const siteLimitProblem = (limit: SiteLimit): string | null => (limit !== null && limit.length === 0 ? 'Sites: tick at least one, or choose every site.' : null);

/**
 * What a new thing starts with: every site for a person who reaches them all; else all of their
 * own (active) sites, as the server does when `site_ids` is left out.
 */
export function useOwnSites(): SiteLimit {
  const { mayChooseAll, choices } = useSiteScope();
  return mayChooseAll ? null : choices.map((site) => site.site_id);
}

/**
 * "Every site" or some of the active sites, as ticks: a person limited to sites is offered only
 * theirs and never every site (the server would refuse it). An archived site in `value` is not
 * offered again: it drops out on the next change.
 */
export function SiteLimitField({ value, onChange, idPrefix, legend = 'Sites' }: { value: SiteLimit; onChange: (next: SiteLimit) => void; idPrefix: string; legend?: string }) {
  const { mayChooseAll, choices } = useSiteScope();
  // The ticks last chosen, so "Every site" and back does not lose them.
  const [ticked, setTicked] = useState<readonly string[]>(value ?? []);
  const offered = (ids: readonly string[]) => ids.filter((id) => choices.some((site) => site.site_id === id));
  const tick = (siteId: string, on: boolean) => {
    const next = offered(on ? [...(value ?? []), siteId] : (value ?? []).filter((id) => id !== siteId));
    setTicked(next);
    onChange(next);
  };
  return (
    <fieldset className="checklist" data-testid={`${idPrefix}-sites`}>
      <legend>{legend}</legend>
      {mayChooseAll && (
        <>
          <label className="check" htmlFor={`${idPrefix}-every-site`}>
            <input id={`${idPrefix}-every-site`} type="radio" name={`${idPrefix}-reach`} checked={value === null} onChange={() => onChange(null)} />
            <span>
              Every site <span className="muted">and sites added later</span>
            </span>
          </label>
          <label className="check" htmlFor={`${idPrefix}-some-sites`}>
            <input id={`${idPrefix}-some-sites`} type="radio" name={`${idPrefix}-reach`} checked={value !== null} onChange={() => onChange(offered(ticked))} />
            <span>Only these sites</span>
          </label>
        </>
      )}
      {value !== null && (
        <ul className={`stack-tight${mayChooseAll ? ' indented' : ''}`}>
          {choices.map((site) => (
            <li key={site.site_id}>
              <label className="check" htmlFor={`${idPrefix}-site-${site.site_id}`}>
                <input id={`${idPrefix}-site-${site.site_id}`} type="checkbox" checked={value.includes(site.site_id)} onChange={(event) => tick(site.site_id, event.target.checked)} />
                {site.name}
              </label>
            </li>
          ))}
        </ul>
      )}
    </fieldset>
  );
}

/** The names of the sites something reaches, as a list says it: "Every site", or each by name. */
export function siteNames(limit: SiteLimit, sites: readonly Site[]): string[] | null {
  return limit === null ? null : limit.map((id) => sites.find((site) => site.site_id === id)?.name ?? id);
}

/** A row's sites: a tag for every site, else the names as chips. */
export function SitesOf({ limit }: { limit: SiteLimit }) {
  const { sites } = useSiteScope();
  const names = siteNames(limit, sites);
  if (names === null)
    return (
      <span className="tag nowrap" data-testid="sites-of">
        Every site
      </span>
    );
  return (
    <ul className="chips names" data-testid="sites-of">
      {names.map((name, index) => (
        <li key={index}>{name}</li>
      ))}
    </ul>
  );
}
