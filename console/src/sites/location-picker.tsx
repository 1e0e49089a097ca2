import { useEffect } from 'react';
import { CircleMarker, Tooltip, useMap, useMapEvents } from 'react-leaflet';
import { BaseMap, NIGERIA } from '../map/base-map.tsx';

/** Six decimals: about 10 cm, more than a click on a map can mean. */
const round = (value: number) => Math.round(value * 1e6) / 1e6;

/** A click on the map is the site's position. */
function PickOnClick({ onPick }: { onPick: (at: [number, number]) => void }) {
  useMapEvents({
    click(event) {
      const at = event.latlng.wrap();
      onPick([round(at.lat), round(at.lng)]);
    },
  });
  return null;
}

/** A position typed in the fields is brought into view; one clicked on is already in it. */
function FollowPosition({ at }: { at: [number, number] | null }) {
  const map = useMap();
  useEffect(() => {
    if (at && !map.getBounds().contains(at)) map.setView(at, Math.max(map.getZoom(), 13));
  }, [map, at?.[0], at?.[1]]);
  return null;
}

/**
 * Where a site is, picked on the console's base map (issue #48): a click puts the marker there.
 * Loaded with the sites form only when it is opened, with Leaflet and the borders.
 */
export default function LocationPicker({ at, onPick, name }: { at: [number, number] | null; onPick: (at: [number, number]) => void; name: string }) {
  return (
    <BaseMap center={at ?? NIGERIA.center} zoom={at ? 13 : NIGERIA.zoom} label={`Map: click where ${name || 'the site'} is`} testId="site-location-map">
      <PickOnClick onPick={onPick} />
      <FollowPosition at={at} />
      {at && (
        <CircleMarker center={at} radius={9} pathOptions={{ color: '#1e3a8a', weight: 2, fillColor: '#2563eb', fillOpacity: 1 }}>
          <Tooltip permanent direction="top">
            {name || 'The site'}
          </Tooltip>
        </CircleMarker>
      )}
    </BaseMap>
  );
}
