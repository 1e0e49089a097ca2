import { acrossOrganizations } from '../db/tenant.ts';
import type { DispatchOfferRow, Executor, IncidentRow, ResponderRow } from '../db/schema.ts';
import { intervalRowsOf, type IntervalRow } from '../incidents/intervals.ts';

/**
 * The operations centre's reads across organizations: the tenant rule's one named exception
 * (eslint.config.js). Tsaro's staff see every organization's live incidents and the whole
 * responder network; nothing here writes (a controller's actions go through the incidents'
 * lifecycle and dispatch), and nothing here is reachable without a staff session.
 */

const ACTIVE = ['dispatching', 'assigned', 'responding', 'on_scene', 'escalated', 'unresponsive'];

export type QueueRow = IncidentRow & { organization_name: string };

/** Every live incident still active, across organizations, with its organization's name (drills only when asked for). */
export async function liveActiveIncidents(db: Executor, options: { drills: boolean; limit: number }): Promise<QueueRow[]> {
  let query = acrossOrganizations(db, 'incidents')
    .innerJoin('organizations', 'organizations.organization_id', 'incidents.organization_id')
    .selectAll('incidents')
    .select('organizations.name as organization_name')
    .where('incidents.environment', '=', 'live')
    .where('incidents.status', 'in', ACTIVE)
    .orderBy('incidents.created_at')
    .limit(options.limit);
  if (!options.drills) query = query.where('incidents.is_drill', '=', 0);
  return (await query.execute()) as QueueRow[];
}

/** A live incident of any organization, by id. */
export async function liveIncidentById(db: Executor, incidentId: string): Promise<QueueRow | undefined> {
  return (await acrossOrganizations(db, 'incidents')
    .innerJoin('organizations', 'organizations.organization_id', 'incidents.organization_id')
    .selectAll('incidents')
    .select('organizations.name as organization_name')
    .where('incidents.incident_id', '=', incidentId)
    .where('incidents.environment', '=', 'live')
    .executeTakeFirst()) as QueueRow | undefined;
}

export type CandidateRow = ResponderRow & { busy: number };

/** Every verified, active responder of the live network, with whether an incident is in their hands. */
export async function verifiedLiveResponders(db: Executor): Promise<CandidateRow[]> {
  return (await db
    .selectFrom('responders')
    .selectAll('responders')
    .select((eb) =>
      eb
        .case()
        .when(
          eb.exists(
            eb
              .selectFrom('incidents')
              .select('incidents.incident_id')
              .whereRef('incidents.responder_id', '=', 'responders.responder_id')
              .where('incidents.status', 'in', ['assigned', 'responding', 'on_scene']),
          ),
        )
        .then(1)
        .else(0)
        .end()
        .as('busy'),
    )
    .where('responders.environment', '=', 'live')
    .where('responders.standing', '=', 'verified')
    .where('responders.status', '=', 'active')
    .execute()) as CandidateRow[];
}

export type OfferView = DispatchOfferRow & { responder_name: string };

/** An incident's offers, with who they went to. */
export function offersWithNames(db: Executor, incidentId: string): Promise<OfferView[]> {
  return db
    .selectFrom('dispatch_offers')
    .innerJoin('responders', 'responders.responder_id', 'dispatch_offers.responder_id')
    .selectAll('dispatch_offers')
    .select('responders.name as responder_name')
    .where('dispatch_offers.incident_id', '=', incidentId)
    .orderBy('dispatch_offers.offered_at')
    .execute() as Promise<OfferView[]>;
}

/** The response intervals' rows of every live incident created in the window, across organizations (or one partner's), for the staff report. */
export async function liveIntervalRows(db: Executor, window: { from: string; to: string }, organizationId?: string): Promise<IntervalRow[]> {
  let base = acrossOrganizations(db, 'incidents').where('incidents.environment', '=', 'live');
  if (organizationId) base = base.where('incidents.organization_id', '=', organizationId);
  return (await intervalRowsOf(base, window).execute()) as IntervalRow[];
}

export interface MapSiteRow {
  site_id: string;
  organization_id: string;
  organization_name: string;
  name: string;
  latitude: number;
  longitude: number;
}

/** Every placed, unarchived site of every organization with live incidents possible: the live map's sites. */
export async function placedSites(db: Executor, limit: number): Promise<MapSiteRow[]> {
  return (await db
    .selectFrom('sites')
    .innerJoin('organizations', 'organizations.organization_id', 'sites.organization_id')
    .select(['sites.site_id', 'sites.organization_id', 'organizations.name as organization_name', 'sites.name', 'sites.latitude', 'sites.longitude'])
    .where('sites.archived_at', 'is', null)
    .where('sites.latitude', 'is not', null)
    .where('sites.longitude', 'is not', null)
    .orderBy('sites.site_id')
    .limit(limit)
    .execute()) as MapSiteRow[];
}

export type MapResponderRow = Pick<ResponderRow, 'responder_id' | 'name' | 'latitude' | 'longitude' | 'location_at'>;

/** Every verified, active responder of the live network with their last fix: the live map's markers. */
export function liveResponderFixes(db: Executor): Promise<MapResponderRow[]> {
  return db
    .selectFrom('responders')
    .select(['responder_id', 'name', 'latitude', 'longitude', 'location_at'])
    .where('environment', '=', 'live')
    .where('status', '=', 'active')
    .where('standing', '=', 'verified')
    .execute() as Promise<MapResponderRow[]>;
}
