import type { LatLngBounds, LeafletMouseEvent } from 'leaflet';
import { useEffect, useRef, useState } from 'react';
import { Circle, CircleMarker, Polyline, Popup, Tooltip, useMap, useMapEvents } from 'react-leaflet';
import type { DangerZone, Heatmap, RouteSafety, SafetyScore, ThreatCoverage } from './types.ts';
import { threatWindow } from './window.ts';
import { describeError } from '../api.ts';
import { ErrorNote } from '../components/ui.tsx';
import { useConsole, useLoad } from '../context.tsx';
import { useLiveEvents } from '../live/hooks.ts';
import { positionOf } from '../live/incidents.ts';
import { BaseMap, LEVEL_COLOUR, NIGERIA } from '../map/base-map.tsx';
import { ScreenHeader } from '../components/layout.tsx';
import { useSiteScope } from '../sites/site-scope.tsx';
import type { Site } from '../sites/site-choice.ts';

type Point = { lat: number; lng: number };
type Mode = 'score' | 'route';

const WINDOWS = [30, 90, 180, 365];
/** `value` to `digits` decimals, as the query sends it: a pixel's difference asks nothing new. */
const rounded = (value: number, digits: number) => Number(value.toFixed(digits));
const heatColour = (weight: number) => (weight > 0.66 ? '#b91c1c' : weight > 0.33 ? '#ea580c' : '#ca8a04');

/** The newest day the shipped data reaches (Nigeria first): the default end of the window, so the map is never empty by default. */
function dataThrough(coverage: ThreatCoverage | undefined): string | null {
  if (!coverage) return null;
  const nigeria = coverage.countries.find((country) => country.country === 'NG');
  if (nigeria) return nigeria.through;
  return coverage.countries.map((country) => country.through).sort().at(-1) ?? null;
}

/** Loads what the visible box holds whenever the map stops moving. */
function Viewport({ onBounds, onClick }: { onBounds: (bounds: LatLngBounds) => void; onClick: (point: Point) => void }) {
  const map = useMapEvents({
    moveend: () => onBounds(map.getBounds()),
    click: (event: LeafletMouseEvent) => onClick({ lat: event.latlng.lat, lng: event.latlng.lng }),
  });
  useEffect(() => onBounds(map.getBounds()), [map]);
  return null;
}

/** Close enough to see an estate's streets and what lies around it. */
const SITE_ZOOM = 13;

/** Where a site is, `[latitude, longitude]` as Leaflet takes it, when it has a position. */
const centreOf = (site: Site | null): [number, number] | null => (site?.location ? [site.location.latitude, site.location.longitude] : null);

/** Moves the map to the chosen site when the choice changes; a site without a position leaves it where it is. */
function FollowSite({ centre }: { centre: [number, number] | null }) {
  const map = useMap();
  const key = centre?.join(',');
  useEffect(() => {
    if (centre) map.setView(centre, SITE_ZOOM);
  }, [map, key]);
  return null;
}

/** The threat map: heat and danger zones over a chosen window, a score for a click, a route for two. */
export default function ThreatMapScreen() {
  const { client, environment } = useConsole();
  const { chosen, siteId } = useSiteScope();
  const siteCentre = centreOf(chosen);
  const coverage = useLoad((c) => c.get('/threat/coverage'), []);
  const through = dataThrough(coverage.data);
  const [days, setDays] = useState(90);
  const [until, setUntil] = useState<string | null>(null);
  // No threat data at all (a server without THREAT_SEED, nothing imported): the window ends today,
  // so the organization's own incidents and any data to come still show.
  const end = until ?? through ?? (coverage.data ? new Date().toISOString().slice(0, 10) : null);
  const [bounds, setBounds] = useState<LatLngBounds | null>(null);
  const [heat, setHeat] = useState<Heatmap | null>(null);
  const [zones, setZones] = useState<DangerZone[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [mode, setMode] = useState<Mode>('score');
  const [score, setScore] = useState<{ at: Point; result: SafetyScore } | null>(null);
  const [routeStart, setRouteStart] = useState<Point | null>(null);
  const [route, setRoute] = useState<{ from: Point; to: Point; result: RouteSafety } | null>(null);
  const asked = useRef(0);
  // The partner's own incidents in progress, over the threat data: read again as they change.
  const [round, setRound] = useState(0);
  const active = useLoad((c) => c.get('/incidents', { params: { query: { status: 'active', limit: 100, site_id: siteId } } }), [round, siteId]);
  useLiveEvents(
    (event) => event.type.startsWith('incident.') && setRound((n) => n + 1),
    () => setRound((n) => n + 1),
  );

  useEffect(() => {
    if (!bounds || !end) return;
    const ask = ++asked.current;
    const span = threatWindow(end, days, new Date());
    const box = [bounds.getSouth(), bounds.getWest(), bounds.getNorth(), bounds.getEast()].map((n) => n.toFixed(4)).join(',');
    const centre = bounds.getCenter();
    const radius = Math.min(2000, Math.max(1, centre.distanceTo(bounds.getNorthEast()) / 1000));
    const timer = setTimeout(() => {
      Promise.all([
        client.get('/danger-zones/heatmap', { params: { query: { bounds: box, days, ...(span.until ? { until: span.until } : {}) } } }),
        client.get('/danger-zones', {
          params: { query: { latitude: rounded(centre.lat, 4), longitude: rounded(centre.lng, 4), radius_km: rounded(radius, 1), from_date: span.fromDate, to_date: span.toDate, limit: 100 } },
        }),
      ]).then(
        ([nextHeat, nextZones]) => {
          if (ask !== asked.current) return;
          setHeat(nextHeat);
          setZones(nextZones.results);
          setError(null);
        },
        (failure: unknown) => ask === asked.current && setError(describeError(failure)),
      );
    }, 250);
    return () => clearTimeout(timer);
  }, [client, environment, bounds, days, end]);

  const onClick = (point: Point) => {
    setError(null);
    if (mode === 'score') {
      client.get('/safety/score', { params: { query: { latitude: rounded(point.lat, 5), longitude: rounded(point.lng, 5) } } }).then(
        (result) => setScore({ at: point, result }),
        (failure: unknown) => setError(describeError(failure)),
      );
      return;
    }
    if (!routeStart) {
      setRouteStart(point);
      setRoute(null);
      return;
    }
    const from = routeStart;
    setRouteStart(null);
    client
      .get('/safety/route', {
        params: { query: { from_lat: rounded(from.lat, 5), from_lng: rounded(from.lng, 5), to_lat: rounded(point.lat, 5), to_lng: rounded(point.lng, 5), checkpoints: 10 } },
      })
      .then(
        (result) => setRoute({ from, to: point, result }),
        (failure: unknown) => setError(describeError(failure)),
      );
  };

  return (
    <div className="stack" data-testid="screen-threat-map">
      <ScreenHeader title="Threat map">
        Where violence was recorded, from public event data, community reports and verified incidents. Click for a place's safety score; switch to route and
        click twice for a route's.
      </ScreenHeader>
      <div className="filters" role="group" aria-label="Map window">
        <label>
          Window{' '}
          <select value={days} onChange={(e) => setDays(Number(e.target.value))} data-testid="map-days">
            {WINDOWS.map((value) => (
              <option key={value} value={value}>
                {value} days
              </option>
            ))}
          </select>
        </label>
        <label>
          ending{' '}
          <input type="date" value={end ?? ''} max={new Date().toISOString().slice(0, 10)} onChange={(e) => setUntil(e.target.value || null)} data-testid="map-until" />
        </label>
        <span className="muted" data-testid="data-through">
          {through ? `The data runs through ${through}.` : coverage.data ? 'No threat data on this server yet.' : 'Reading how current the data is…'}
        </span>
        <span className="segmented" role="group" aria-label="What a click does">
          <button type="button" aria-pressed={mode === 'score'} onClick={() => (setMode('score'), setRouteStart(null))}>
            Safety score
          </button>
          <button type="button" aria-pressed={mode === 'route'} onClick={() => (setMode('route'), setScore(null))} data-testid="mode-route">
            Route
          </button>
        </span>
      </div>
      {mode === 'route' && (
        <p className="muted" role="status">
          {routeStart ? 'Now click where the route ends.' : 'Click where the route starts.'}
        </p>
      )}
      <ErrorNote error={error ?? coverage.error} />
      <BaseMap center={siteCentre ?? NIGERIA.center} zoom={siteCentre ? SITE_ZOOM : NIGERIA.zoom} label="Threat map" testId="threat-map">
        <Viewport onBounds={setBounds} onClick={onClick} />
        <FollowSite centre={siteCentre} />
        {heat?.heatmap.map((point, index) => (
          <CircleMarker
            key={`h${index}`}
            center={[point.lat, point.lng]}
            radius={5 + point.weight * 12}
            pathOptions={{ stroke: false, fillColor: heatColour(point.weight), fillOpacity: 0.25 + point.weight * 0.45 }}
            interactive={false}
          />
        ))}
        {zones.map((zone) => (
          <Circle
            key={zone.zone_id}
            center={[zone.center.latitude, zone.center.longitude]}
            radius={zone.radius_km * 1000}
            pathOptions={{ color: LEVEL_COLOUR[zone.level], weight: 2, fillOpacity: 0.08 }}
          >
            <Tooltip>
              {zone.name}: {zone.level.replace('_', ' ')}, {zone.incident_count} events
            </Tooltip>
          </Circle>
        ))}
        {active.data?.results.map((incident) => {
          const position = positionOf(incident);
          return (
            position && (
              <CircleMarker
                key={incident.incident_id}
                center={[position.latitude, position.longitude]}
                radius={9}
                pathOptions={{ color: '#7f1d1d', weight: 3, fillColor: '#ffffff', fillOpacity: 0.9 }}
              >
                <Tooltip>
                  {incident.title}: {incident.status.replace('_', ' ')}
                  {incident.subject.metadata.entry_point ? ` at ${incident.subject.metadata.entry_point}` : ''}
                </Tooltip>
              </CircleMarker>
            )
          );
        })}
        {score && (
          <Popup position={[score.at.lat, score.at.lng]} eventHandlers={{ remove: () => setScore(null) }}>
            <div data-testid="score-popup">
              <strong>
                Safety {score.result.score}/100: {score.result.level.replace('_', ' ')}
              </strong>
              <br />
              {score.result.breakdown.recent_incidents_30d} events in 30 days within {score.result.radius_km} km; trend {score.result.breakdown.trend}.
              <br />
              Data through {score.result.data.through ?? 'no data here'}.
            </div>
          </Popup>
        )}
        {routeStart && <CircleMarker center={[routeStart.lat, routeStart.lng]} radius={7} pathOptions={{ color: '#1d4ed8', fillOpacity: 1 }} />}
        {route && (
          <>
            <Polyline positions={route.result.checkpoints.map((c) => [c.location.lat, c.location.lng] as [number, number])} pathOptions={{ color: '#1d4ed8', weight: 3 }} />
            {route.result.checkpoints.map((c) => (
              <CircleMarker key={c.checkpoint} center={[c.location.lat, c.location.lng]} radius={7} pathOptions={{ color: '#0f172a', weight: 1, fillColor: LEVEL_COLOUR[c.level], fillOpacity: 1 }}>
                <Tooltip>
                  Checkpoint {c.checkpoint}: {c.safety_score}/100, {c.level.replace('_', ' ')}
                </Tooltip>
              </CircleMarker>
            ))}
          </>
        )}
      </BaseMap>
      <p className="muted" data-testid="map-counts">
        {heat ? `${heat.incident_count} events in ${heat.count} places` : 'Reading the heat map…'} · {zones.length} danger zones in view
        {active.data ? ` · ${active.data.results.length} of your incidents in progress (red rings)` : ''}
      </p>
      {route && (
        <section className="panel stack" aria-labelledby="route-title" data-testid="route-result">
          <h2 id="route-title">
            Route: {route.result.route_safety_score}/100 over {route.result.distance_km.toFixed(1)} km
          </h2>
          <p>{route.result.recommendation}</p>
          <ol className="timeline">
            {route.result.checkpoints.map((c) => (
              <li key={c.checkpoint}>
                Checkpoint {c.checkpoint} ({c.location.lat.toFixed(3)}, {c.location.lng.toFixed(3)}): {c.safety_score}/100, {c.level.replace('_', ' ')}
              </li>
            ))}
          </ol>
          <p className="muted">Data through {route.result.data.through ?? '—'}.</p>
        </section>
      )}
      {zones.length > 0 && (
        <section className="panel" aria-labelledby="zones-title">
          <h2 id="zones-title">Danger zones in view, most severe first</h2>
          <ul className="plain-list" data-testid="zone-list">
            {zones.slice(0, 20).map((zone) => (
              <li key={zone.zone_id}>
                <strong>{zone.name}</strong>: {zone.level.replace('_', ' ')} (severity {zone.severity}), {zone.incident_count} events, the last on{' '}
                {zone.last_incident_at.slice(0, 10)}
              </li>
            ))}
          </ul>
        </section>
      )}
    </div>
  );
}
