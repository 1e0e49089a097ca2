import 'leaflet/dist/leaflet.css';
import type { FeatureCollection } from 'geojson';
import type { ReactNode } from 'react';
import { GeoJSON, MapContainer } from 'react-leaflet';
import { feature } from 'topojson-client';
import type { GeometryCollection, Topology } from 'topojson-specification';
import countries50m from 'world-atlas/countries-50m.json';

/**
 * Country borders from Natural Earth (public domain, via the world-atlas package), shipped in
 * the console: the map draws with no internet and asks nothing of any other origin. Made once.
 */
let borders: FeatureCollection | null = null;
function countryBorders(): FeatureCollection {
  const topology = countries50m as unknown as Topology<{ countries: GeometryCollection }>;
  return (borders ??= feature(topology, topology.objects.countries) as FeatureCollection);
}

export const BORDERS_ATTRIBUTION = 'Borders: Natural Earth (public domain)';
export const EVENTS_ATTRIBUTION = 'Events: UCDP GED, Uppsala Conflict Data Program, CC BY 4.0 (subset; not endorsed by UCDP); community reports; verified incidents';

/** Nigeria, whole, on a laptop screen. */
export const NIGERIA = { center: [9.08, 8.68] as [number, number], zoom: 6 };

/**
 * The console's map: Leaflet on a canvas (no WebGL), the shipped borders under whatever the
 * screen draws. Markers are vector circles, never image icons, so nothing is fetched.
 */
export function BaseMap({ center, zoom, label, children, testId }: { center: [number, number]; zoom: number; label: string; children?: ReactNode; testId?: string }) {
  return (
    <div className="map-frame" role="region" aria-label={label} data-testid={testId}>
      <MapContainer center={center} zoom={zoom} minZoom={3} maxZoom={16} preferCanvas worldCopyJump className="map">
        <GeoJSON
          data={countryBorders()}
          interactive={false}
          style={{ color: '#64748b', weight: 1, fillColor: '#f8fafc', fillOpacity: 1 }}
          attribution={`${BORDERS_ATTRIBUTION} · ${EVENTS_ATTRIBUTION}`}
        />
        {children}
      </MapContainer>
    </div>
  );
}

/** A threat level's colour, as the API's `color` names it. */
export const LEVEL_COLOUR: Record<string, string> = { safe: '#15803d', moderate: '#ca8a04', high_risk: '#ea580c', critical: '#b91c1c' };
