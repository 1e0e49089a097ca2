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

/** A place (a site, or a live incident still waiting for help) with no available responder with a fresh fix within the dispatch radius. */
export interface UncoveredPlace {
  kind: 'site' | 'incident';
  id: string;
  name: string;
  latitude: number;
  longitude: number;
  /** The nearest available responder with a fresh fix, km; null: none anywhere. */
  nearest_km: number | null;
}
