import { useCallback, useMemo } from 'react';
import type { Schemas } from '../api.ts';
import { useLoad } from '../context.tsx';

type Site = Schemas['Site'];

/**
 * The organization's active sites, read once per screen (at most 100: a company's estates), and
 * which site an incident belongs to: the site one of whose gates it names, else the default site
 * (where what names no site belongs, issue #34). Until incidents carry their site, this is how a
 * card finds the numbers to call.
 */
export function useSites(): { sites: Site[]; siteOf: (entryPoint: string | null) => Site | undefined } {
  const loaded = useLoad((client) => client.get('/sites', { params: { query: { status: 'active', limit: 100 } } }), []);
  const sites = useMemo(() => loaded.data?.results ?? [], [loaded.data]);
  const byGate = useMemo(() => {
    const map = new Map<string, Site>();
    for (const site of sites) for (const entry of site.entry_points) if (!map.has(entry.name)) map.set(entry.name, site);
    return map;
  }, [sites]);
  const siteOf = useCallback(
    (entryPoint: string | null) => (entryPoint && byGate.get(entryPoint.trim())) || sites.find((site) => site.is_default),
    [byGate, sites],
  );
  return { sites, siteOf };
}
