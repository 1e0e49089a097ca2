import { lazy, Suspense, useState } from 'react';

const LocationPicker = lazy(() => import('./location-picker.tsx'));

/** A site's position as the form holds it: the two fields as typed. */
export interface LocationText {
  latitude: string;
  longitude: string;
}

export const locationText = (location: { latitude: number; longitude: number } | null): LocationText =>
  location ? { latitude: String(location.latitude), longitude: String(location.longitude) } : { latitude: '', longitude: '' };

/** The position to send: null for two empty fields; a problem naming the field for one empty, or out of range. */
export function parsedLocation(text: LocationText): { location: { latitude: number; longitude: number } | null; problem: string | null } {
  const latitude = text.latitude.trim();
  const longitude = text.longitude.trim();
  if (!latitude && !longitude) return { location: null, problem: null };
  const lat = Number(latitude);
  const lng = Number(longitude);
  if (!latitude || !Number.isFinite(lat) || Math.abs(lat) > 90) return { location: null, problem: 'Latitude: a number from -90 to 90, e.g. 6.4281 (or pick the place on the map).' };
  if (!longitude || !Number.isFinite(lng) || Math.abs(lng) > 180) return { location: null, problem: 'Longitude: a number from -180 to 180, e.g. 3.4216 (or pick the place on the map).' };
  return { location: { latitude: lat, longitude: lng }, problem: null };
}

/**
 * Where a site is: latitude and longitude, typed (or pasted from a phone's map) or picked with a
 * click on the map, which opens on demand. Responders and the threat map use it.
 */
export function LocationField({ value, onChange, idPrefix, name }: { value: LocationText; onChange: (next: LocationText) => void; idPrefix: string; name: string }) {
  const [mapOpen, setMapOpen] = useState(false);
  const parsed = parsedLocation(value).location;
  return (
    <fieldset className="stack-tight location-field" data-testid={`${idPrefix}-location`}>
      <legend>Location</legend>
      <p className="row">
        <label htmlFor={`${idPrefix}-latitude`}>Latitude</label>
        <input id={`${idPrefix}-latitude`} inputMode="decimal" value={value.latitude} onChange={(e) => onChange({ ...value, latitude: e.target.value })} placeholder="6.4281" size={12} />
        <label htmlFor={`${idPrefix}-longitude`}>Longitude</label>
        <input id={`${idPrefix}-longitude`} inputMode="decimal" value={value.longitude} onChange={(e) => onChange({ ...value, longitude: e.target.value })} placeholder="3.4216" size={12} />
        <button type="button" aria-expanded={mapOpen} onClick={() => setMapOpen(!mapOpen)}>
          {mapOpen ? 'Close the map' : 'Pick on the map'}
        </button>
        {(value.latitude || value.longitude) && (
          <button type="button" className="link" onClick={() => onChange({ latitude: '', longitude: '' })}>
            Clear
          </button>
        )}
      </p>
      {mapOpen && (
        <div className="location-map">
          <Suspense fallback={<p className="muted">Opening the map…</p>}>
            <LocationPicker at={parsed ? [parsed.latitude, parsed.longitude] : null} onPick={([latitude, longitude]) => onChange({ latitude: String(latitude), longitude: String(longitude) })} name={name} />
          </Suspense>
          <p className="muted small">Click where the site is; zoom in with the + button or the mouse wheel for a closer place.</p>
        </div>
      )}
    </fieldset>
  );
}
