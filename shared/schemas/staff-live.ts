import type { DutyStatus } from './duty.ts';

/**
 * What the staff channel (`GET /v1/staff/live`, server/operations/live.ts) sends about the
 * network, as the live map (console/src/operations/live-map.tsx) reads it: one shape for both.
 */

export interface MapResponder {
  responder_id: string;
  name: string;
  duty_status: DutyStatus;
  status_since: string | null;
  out_of_service_reason: string | null;
  latitude: number | null;
  longitude: number | null;
  location_at: string | null;
}

export interface MapSite {
  site_id: string;
  organization_id: string;
  organization_name: string;
  name: string;
  latitude: number;
  longitude: number;
}

/**
 * A place with nobody to send: a site, or a live incident still waiting for help, with no
 * available responder with a fresh fix within the dispatch radius; or an area with a shift now
 * and no such responder inside it (server/duty/area-geometry.ts, `areaGaps`).
 */
export interface UncoveredPlace {
  kind: 'site' | 'incident' | 'area';
  id: string;
  name: string;
  /** An area's centre (a polygon's corners averaged). */
  latitude: number;
  longitude: number;
  /** The nearest available responder with a fresh fix, km (from an area's edge); null: none anywhere. */
  nearest_km: number | null;
  /** An area's: who is on shift there and where they are, in words; null for sites and incidents. */
  note: string | null;
}
