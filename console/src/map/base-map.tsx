import 'leaflet/dist/leaflet.css';
import type { FeatureCollection } from 'geojson';
import { useEffect, useState, type ReactNode } from 'react';
import { GeoJSON, MapContainer, Pane, TileLayer } from 'react-leaflet';
import { feature } from 'topojson-client';
import type { GeometryCollection, Topology } from 'topojson-specification';
import countries50m from 'world-atlas/countries-50m.json';
import type { Schemas } from '../api.ts';

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

interface MapSettings {
  tile_url: string | null;
  tile_attribution: string | null;
}

/** The deployment's map settings (CONSOLE_TILE_URL or CONSOLE_TILE_DIR), read once per page; none when they cannot be read. */
let settings: Promise<MapSettings> | null = null;
const mapSettings = () =>
  (settings ??= fetch('/console/config.json', { cache: 'no-store' })
    .then((response) => (response.ok ? (response.json() as Promise<{ map: MapSettings }>) : { map: { tile_url: null, tile_attribution: null } }))
    .then((config) => config.map)
    .catch(() => ({ tile_url: null, tile_attribution: null })));

function useMapSettings(): MapSettings | null {
  const [value, setValue] = useState<MapSettings | null>(null);
  useEffect(() => {
    let current = true;
    void mapSettings().then((next) => current && setValue(next));
    return () => {
      current = false;
    };
  }, []);
  return value;
}

/** Nigeria, whole, on a laptop screen. */
export const NIGERIA = { center: [9.08, 8.68] as [number, number], zoom: 6 };

/**
 * The console's map: Leaflet on a canvas (no WebGL), the shipped borders under whatever the
 * screen draws. Markers are vector circles, never image icons, so nothing is fetched. With the
 * operator's tiles (issue #48) the streets are drawn over the shipped land, which stays below
 * them (its own pane, under the tiles') wherever a tile is missing or cannot load, with the
 * borders as lines on top.
 */
export function BaseMap({ center, zoom, label, children, testId }: { center: [number, number]; zoom: number; label: string; children?: ReactNode; testId?: string }) {
  const tiles = useMapSettings();
  return (
    <div className="map-frame" role="region" aria-label={label} data-testid={testId}>
      <MapContainer center={center} zoom={zoom} minZoom={3} maxZoom={16} preferCanvas worldCopyJump className="map">
        {tiles?.tile_url && (
          <>
            <Pane name="land" style={{ zIndex: 150 }}>
              <GeoJSON data={countryBorders()} interactive={false} style={{ stroke: false, fillColor: '#f8fafc', fillOpacity: 1 }} />
            </Pane>
            <TileLayer url={tiles.tile_url} attribution={tiles.tile_attribution ?? ''} maxZoom={19} />
          </>
        )}
        <GeoJSON
          data={countryBorders()}
          interactive={false}
          // Over tiles, the borders are lines only (the land is under the tiles); alone, they are the land.
          style={{ color: '#64748b', weight: 1, fillColor: '#f8fafc', fillOpacity: tiles?.tile_url ? 0 : 1 }}
          attribution={`${BORDERS_ATTRIBUTION} · ${EVENTS_ATTRIBUTION}`}
        />
        {children}
      </MapContainer>
    </div>
  );
}

/** A threat level's colour, as the API's `color` names it. */
export const LEVEL_COLOUR: Record<Schemas['ThreatLevel'], string> = { safe: '#15803d', moderate: '#ca8a04', high_risk: '#ea580c', critical: '#b91c1c' };
