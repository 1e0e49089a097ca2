import { Circle, CircleMarker, Tooltip } from 'react-leaflet';
import { useLoad } from '../context.tsx';
import { positionOf, type Incident } from '../live/incidents.ts';
import { BaseMap, LEVEL_COLOUR } from './base-map.tsx';

/** How far around an incident its map shows danger zones. */
const AROUND_KM = 10;

/** An incident on the map: where it is, where its responder last said they were, and the danger zones around. */
export default function IncidentMap({ incident }: { incident: Incident }) {
  const position = positionOf(incident);
  if (!position) return <p className="muted">The incident has no position to show.</p>;
  return <PlacedIncidentMap incident={incident} latitude={position.latitude} longitude={position.longitude} />;
}

function PlacedIncidentMap({ incident, latitude, longitude }: { incident: Incident; latitude: number; longitude: number }) {
  const zones = useLoad(
    (c) => c.get('/danger-zones', { params: { query: { latitude, longitude, radius_km: AROUND_KM, limit: 20 } } }),
    [latitude, longitude],
  );
  const { responder } = incident;
  const responderAt = responder?.location ?? null;
  return (
    <div className="stack-tight map-block">
      <BaseMap center={[latitude, longitude]} zoom={12} label="Map of the incident, its responder and danger zones nearby" testId="incident-map">
        {zones.data?.results.map((zone) => (
          <Circle key={zone.zone_id} center={[zone.center.latitude, zone.center.longitude]} radius={zone.radius_km * 1000} pathOptions={{ color: LEVEL_COLOUR[zone.level], weight: 2, fillOpacity: 0.08 }}>
            <Tooltip>
              {zone.name}: {zone.level.replace('_', ' ')}, {zone.incident_count} events
            </Tooltip>
          </Circle>
        ))}
        <CircleMarker center={[latitude, longitude]} radius={9} pathOptions={{ color: '#7f1d1d', weight: 2, fillColor: '#dc2626', fillOpacity: 1 }}>
          <Tooltip permanent direction="top">
            Incident
          </Tooltip>
        </CircleMarker>
        {responder && responderAt && (
          <CircleMarker center={[responderAt.latitude, responderAt.longitude]} radius={8} pathOptions={{ color: '#1e3a8a', weight: 2, fillColor: '#2563eb', fillOpacity: 1 }}>
            <Tooltip permanent direction="top">
              {responder.name}
            </Tooltip>
          </CircleMarker>
        )}
      </BaseMap>
      <p className="muted" data-testid="incident-map-legend">
        Red: the incident. {responderAt ? 'Blue: the responder’s last reported position. ' : 'No responder position yet. '}
        {zones.data ? `${zones.data.results.length} danger zones within ${AROUND_KM} km.` : ''}
      </p>
    </div>
  );
}
