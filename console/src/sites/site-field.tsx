import { useState, type ReactElement } from 'react';
import { useSiteScope } from './site-scope.tsx';

/**
 * The site a new code (or list of codes) is for: the site chosen in the top bar; with every site
 * shown, the one picked in the form, at first the default site. Undefined with one site to
 * offer: the server puts it at the only one.
 */
export function useSiteForNew(): { siteId: string | undefined; field: ReactElement | null } {
  const { chosen, choices } = useSiteScope();
  const [picked, setPicked] = useState<string | null>(null);
  if (chosen)
    return {
      siteId: chosen.site_id,
      field:
        choices.length > 1 ? (
          <p className="muted" data-testid="new-for-site">
            For <strong>{chosen.name}</strong>, the site chosen at the top: its gates only.
          </p>
        ) : null,
    };
  if (choices.length <= 1) return { siteId: undefined, field: null };
  const siteId = picked ?? (choices.find((site) => site.is_default) ?? choices[0])!.site_id;
  return {
    siteId,
    field: (
      <label>
        Site{' '}
        <select value={siteId} onChange={(event) => setPicked(event.target.value)} data-testid="new-site-choice">
          {choices.map((site) => (
            <option key={site.site_id} value={site.site_id}>
              {site.name}
            </option>
          ))}
        </select>
      </label>
    ),
  };
}
