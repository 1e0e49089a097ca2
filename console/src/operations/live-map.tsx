import L from 'leaflet';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useMap } from 'react-leaflet';
import { BaseMap } from '../map/base-map.tsx';
import type { DutyStatus } from '../../../shared/schemas/duty.ts';
import type { MapResponder, UncoveredPlace } from '../../../shared/schemas/staff-live.ts';
import { useStaffLive, type StaffLiveData } from './staff-live.tsx';

/**
 * The live map (issue #47): every verified responder by the colour of their duty status at their
 * last fix, live incidents, sites, areas, and the places with nobody within reach, fed by the
 * staff channel (GET /v1/staff/live: a snapshot, then changes; ./staff-live.tsx). Markers are canvas circles made
 * once per responder and moved or recoloured in place, so a thousand draw and move smoothly.
 * Whatever a partner or responder wrote (names, titles, reasons) goes into the page as text.
 */

type LiveData = StaffLiveData;

export const STATUS_COLOUR: Record<DutyStatus, string> = {
  available: '#16a34a',
  offered: '#f59e0b',
  en_route: '#2563eb',
  on_scene: '#7c3aed',
  out_of_service: '#dc2626',
  off_duty: '#94a3b8',
};
const STATUS_WORDS: Record<DutyStatus, string> = {
  available: 'Available',
  offered: 'Offered',
  en_route: 'En route',
  on_scene: 'On scene',
  out_of_service: 'Out of service',
  off_duty: 'Off duty',
};

/** "40 s", "12 min", "3 h": how old a fix is. */
export function fixAge(at: string | null, nowMs: number): string {
  if (!at) return 'no fix';
  const seconds = Math.max(0, Math.round((nowMs - Date.parse(at)) / 1000));
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min`;
  return `${Math.floor(seconds / 3600)} h`;
}

/** A tooltip's content as an element made of text nodes: Leaflet would read a string as HTML. */
function textElement(lines: string[]): HTMLElement {
  const element = document.createElement('div');
  lines.forEach((line, i) => {
    if (i) element.appendChild(document.createElement('br'));
    element.appendChild(document.createTextNode(line));
  });
  return element;
}

const responderLines = (r: MapResponder) => [
  r.name,
  `${STATUS_WORDS[r.duty_status]}${r.out_of_service_reason ? ` (${r.out_of_service_reason})` : ''}`,
  `Fix ${fixAge(r.location_at, Date.now())} old`,
];

/** The responders' layer: one canvas circle per responder, moved and recoloured in place. */
function ResponderLayer({ data, version, changed, removed, onDrawn }: { data: LiveData; version: number; changed: { current: Set<string> | 'all' }; removed: { current: Set<string> }; onDrawn: (ms: number, count: number) => void }) {
  const map = useMap();
  const markers = useRef(new Map<string, L.CircleMarker>());
  const renderer = useMemo(() => L.canvas({ padding: 0.5 }), []);
  const group = useMemo(() => L.layerGroup(), []);
  useEffect(() => {
    group.addTo(map);
    // Tests and the bench read the markers as drawn (position and colour), not a copy.
    (map.getContainer() as HTMLElement & { liveMarkers?: Map<string, L.CircleMarker> }).liveMarkers = markers.current;
    return () => void group.remove();
  }, [map, group]);
  useEffect(() => {
    const started = performance.now();
    const drop = (id: string) => {
      const marker = markers.current.get(id);
      if (!marker) return;
      group.removeLayer(marker);
      markers.current.delete(id);
    };
    const ids = changed.current === 'all' ? [...data.responders.keys()] : [...changed.current];
    if (changed.current === 'all') {
      for (const id of [...markers.current.keys()]) if (!data.responders.has(id)) drop(id);
    }
    for (const id of removed.current) drop(id);
    removed.current.clear();
    changed.current = new Set();
    for (const id of ids) {
      const r = data.responders.get(id);
      if (!r) continue;
      if (r.latitude === null || r.longitude === null) {
        drop(id);
        continue;
      }
      let marker = markers.current.get(id);
      const colour = STATUS_COLOUR[r.duty_status];
      if (!marker) {
        marker = L.circleMarker([r.latitude, r.longitude], { renderer, radius: 6, weight: 1, color: '#0f172a', fillColor: colour, fillOpacity: 0.95 });
        // Made when shown: the fix's age is then now's.
        marker.bindTooltip(() => textElement(responderLines(data.responders.get(id) ?? r)));
        markers.current.set(id, marker);
        group.addLayer(marker);
      } else {
        marker.setLatLng([r.latitude, r.longitude]);
        if (marker.options.fillColor !== colour) marker.setStyle({ fillColor: colour });
      }
      (marker as L.CircleMarker & { status?: string }).status = r.duty_status;
    }
    // The canvas paints on the next frame: measured to then.
    requestAnimationFrame(() => onDrawn(performance.now() - started, markers.current.size));
  }, [data, version, group, renderer, changed, removed, onDrawn]);
  return null;
}

/** Areas, sites, incidents and uncovered places: few, redrawn whole when their list changes. */
function PlacesLayer({ data }: { data: LiveData }) {
  const map = useMap();
  const renderer = useMemo(() => L.canvas({ padding: 0.5 }), []);
  useEffect(() => {
    const group = L.layerGroup().addTo(map);
    for (const area of data.areas) {
      const shape = area.shape;
      const layer =
        shape.type === 'Circle'
          ? L.circle([shape.center[1], shape.center[0]], { renderer, radius: shape.radius_m, color: '#0369a1', weight: 1, fillOpacity: 0.05 })
          : L.polygon(shape.coordinates[0].map(([lng, lat]) => [lat, lng] as [number, number]), { renderer, color: '#0369a1', weight: 1, fillOpacity: 0.05 });
      layer.bindTooltip(() => textElement([`Area: ${area.name}`, `${area.shifts} shifts`]));
      group.addLayer(layer);
    }
    for (const site of data.sites) {
      group.addLayer(L.circleMarker([site.latitude, site.longitude], { renderer, radius: 4, weight: 2, color: '#334155', fillColor: '#ffffff', fillOpacity: 1 }).bindTooltip(() => textElement([site.name, site.organization_name])));
    }
    const gaps = new Set(data.uncovered.filter((place) => place.kind === 'area').map((place) => place.id));
    for (const area of data.areas) {
      if (!gaps.has(area.area_id)) continue;
      // An area with a shift now and nobody to send: its own outline, dashed red.
      const shape = area.shape;
      const outline = { renderer, color: '#dc2626', weight: 2, dashArray: '6 4', fill: false, interactive: false };
      group.addLayer(shape.type === 'Circle' ? L.circle([shape.center[1], shape.center[0]], { ...outline, radius: shape.radius_m }) : L.polygon(shape.coordinates[0].map(([lng, lat]) => [lat, lng] as [number, number]), outline));
    }
    for (const place of data.uncovered) {
      if (place.kind === 'area') continue;
      group.addLayer(L.circle([place.latitude, place.longitude], { renderer, radius: data.radius_km * 1000, color: '#dc2626', weight: 1, dashArray: '4 4', fill: false, interactive: false }));
    }
    for (const item of data.queue) {
      group.addLayer(
        L.circleMarker([item.location.latitude, item.location.longitude], { renderer, radius: 9, weight: 2, color: '#7f1d1d', fillColor: '#dc2626', fillOpacity: 1 }).bindTooltip(() =>
          textElement([item.title ?? item.category, `${item.organization_name}: ${item.status}`, `Handled by ${item.owner?.name ?? 'nobody'}`]),
        ),
      );
    }
    return () => void group.remove();
  }, [map, data.areas, data.sites, data.uncovered, data.queue, data.radius_km, renderer]);
  return null;
}

const LAGOS = { center: [6.5, 3.4] as [number, number], zoom: 10 };

/** An uncovered place in words: a site or incident with its nearest responder, an area with who is on shift there. */
function placeWords(place: UncoveredPlace): string {
  const nearest = place.nearest_km === null ? 'no available responder with a fresh fix' : `nearest ${place.nearest_km} km`;
  if (place.kind === 'area') return `Area ${place.name}: nobody available inside (${place.nearest_km === null ? 'no available responder with a fresh fix' : `nearest ${place.nearest_km} km outside`}). ${place.note ?? ''}`;
  return `${place.kind === 'site' ? 'Site' : 'Incident'} ${place.name}: ${nearest}`;
}

export function LiveMap() {
  const { data, state, version, changed, removed } = useStaffLive();
  const connected = state === 'live';
  const [drawn, setDrawn] = useState<{ ms: number; count: number } | null>(null);
  const [find, setFind] = useState('');
  const onDrawn = useMemo(() => (ms: number, count: number) => setDrawn({ ms, count }), []);
  const counts = useMemo(() => {
    const out = Object.fromEntries(Object.keys(STATUS_COLOUR).map((s) => [s, 0])) as Record<DutyStatus, number>;
    for (const r of data?.responders.values() ?? []) out[r.duty_status]++;
    return out;
  }, [data, version]);
  const found = useMemo(() => {
    const words = find.trim().toLowerCase();
    if (!words || !data) return [];
    return [...data.responders.values()].filter((r) => r.name.toLowerCase().includes(words)).slice(0, 10);
  }, [find, data, version]);
  return (
    <section className="stack" data-testid="live-map" data-connected={connected ? 'yes' : 'no'} data-drawn-count={drawn?.count ?? 0} data-draw-ms={drawn ? drawn.ms.toFixed(1) : ''}>
      <h2>Live map</h2>
      {!data && <p className="muted">{state === 'paused' ? 'Live updates paused, reconnecting…' : 'Connecting to the staff channel…'}</p>}
      {data && (
        <>
          <ul className="row legend" data-testid="live-map-legend">
            {(Object.keys(STATUS_COLOUR) as DutyStatus[]).map((status) => (
              <li key={status} data-status={status}>
                <span aria-hidden="true" style={{ display: 'inline-block', width: 10, height: 10, borderRadius: 5, background: STATUS_COLOUR[status], marginRight: 4 }} />
                {STATUS_WORDS[status]}: {counts[status]}
              </li>
            ))}
            <li>Incidents: {data.queue.length}</li>
            <li>Sites: {data.sites.length}</li>
            <li data-testid="uncovered-count">Out of reach ({data.radius_km} km): {data.uncovered.length}</li>
            {!connected && <li className="muted">live updates paused, reconnecting…</li>}
          </ul>
          <BaseMap center={LAGOS.center} zoom={LAGOS.zoom} label="Live map of responders, incidents, sites and areas" testId="live-map-canvas">
            <PlacesLayer data={data} />
            <ResponderLayer data={data} version={version} changed={changed} removed={removed} onDrawn={onDrawn} />
          </BaseMap>
          <label className="field">
            <span>Find a responder</span>
            <input value={find} onChange={(event) => setFind(event.target.value)} placeholder="Name" />
          </label>
          {found.length > 0 && (
            <ul data-testid="live-map-found">
              {found.map((r) => (
                <li key={r.responder_id} data-responder={r.responder_id} data-status={r.duty_status}>
                  {r.name}: {STATUS_WORDS[r.duty_status]}
                  {r.latitude !== null && r.longitude !== null ? `, at ${r.latitude.toFixed(4)}, ${r.longitude.toFixed(4)}` : ', no position'}, fix {fixAge(r.location_at, Date.now())} old
                </li>
              ))}
            </ul>
          )}
          {data.uncovered.length > 0 && (
            <details>
              <summary>Places with nobody within reach ({data.uncovered.length})</summary>
              <ul data-testid="uncovered">
                {data.uncovered.slice(0, 100).map((place) => (
                  <li key={`${place.kind}:${place.id}`} data-kind={place.kind}>
                    {placeWords(place)}
                  </li>
                ))}
              </ul>
            </details>
          )}
        </>
      )}
    </section>
  );
}
