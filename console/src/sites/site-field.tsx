import { useState, type ReactElement } from 'react';
import { useSiteScope } from './site-scope.tsx';

/**
 * The site a new thing is for (a code, a list of codes, a gate): the site chosen in the top bar;
 * with every site shown, the one picked in the form. Nothing is picked for the person (issue #48:
 * a preselected default site made codes and gates for the wrong estate): the form's select starts
 * on "Choose a site" and is required, and `siteId` is undefined until a site is picked, with
 * `missing` true. With one site to offer, undefined (the server puts a code at the only one)
 * unless `named`: a gate's key names its site, so a site added later is not one of its own.
 */
export function useSiteForNew(options: { note?: string; named?: boolean } = {}): { siteId: string | undefined; field: ReactElement | null; missing: boolean } {
  const { note = 'the site chosen at the top: its gates only.', named = false } = options;
  const { chosen, choices } = useSiteScope();
  const [picked, setPicked] = useState<string>('');
  const only = chosen ?? (choices.length === 1 && named ? choices[0]! : null);
  if (only)
    return {
      siteId: only.site_id,
      missing: false,
      field:
        choices.length > 1 || named ? (
          <p className="muted" data-testid="new-for-site">
            For <strong>{only.name}</strong>, {note}
          </p>
        ) : null,
    };
  if (choices.length <= 1) return { siteId: undefined, field: null, missing: false };
  // A site picked that is no longer offered (archived meanwhile) is picked no more.
  const siteId = choices.some((site) => site.site_id === picked) ? picked : '';
  return {
    siteId: siteId || undefined,
    missing: !siteId,
    field: (
      <label>
        Site{' '}
        <select value={siteId} required onChange={(event) => setPicked(event.target.value)} data-testid="new-site-choice">
          <option value="" disabled>
            Choose a site…
          </option>
          <SiteOptions sites={choices} />
        </select>
      </label>
    ),
  };
}

/** A `<select>`'s options, one per site by name: the top bar's switcher and the forms' site choice. */
export function SiteOptions({ sites }: { sites: readonly { site_id: string; name: string }[] }) {
  return (
    <>
      {sites.map((site) => (
        <option key={site.site_id} value={site.site_id}>
          {site.name}
        </option>
      ))}
    </>
  );
}
