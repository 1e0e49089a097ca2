import type { Incident } from '../../shared/schemas/incidents.ts';
import type { Executor, IncidentRow, ResponderRow } from '../db/schema.ts';
import type { RespondersSearch } from '../dispatch/search.ts';

/** The opening of a new incident's dispatch, done by the transaction that creates it. */
export interface DispatchOpening {
  /** Set on the row before it is inserted: the opened round, and when the engine next looks at it. */
  columns: Pick<IncidentRow, 'dispatch_round' | 'next_step_at'>;
  /**
   * After the insert, in the same transaction: the first offers (live incidents). `candidates`:
   * the responders `search` found, when the creating statement read them itself (PostgreSQL's
   * one-statement create, incidents/store.ts); without them the offer searches on its own.
   */
  offer?: (trx: Executor, candidates?: ResponderRow[]) => Promise<void>;
  /** The first round's search (live incidents), for a creating statement that reads the candidates with the insert. */
  search?: RespondersSearch;
}

/**
 * The seam between the incident API and the dispatch engine. The API calls it after the
 * change has committed; the engine (responder network, escalation sweep, simulated sandbox
 * network) implements it. Deadlines live in the incident row, so an engine that was down
 * when it was called still finds the work by reading the database.
 */
export interface Dispatcher {
  /**
   * Optional: the opening, inside the creating transaction, so the incident and its first
   * offers are one commit. Without it (or with round 0), `incidentOpened` or the sweep opens it.
   */
  opening?(row: IncidentRow): DispatchOpening;
  /** After the commit that opened it: offer it if not opened yet (a sweep repeats this for an incident missed here), follow simulated steps. */
  incidentOpened(incident: Incident): void;
  /** Inside the cancelling transaction: withdraw its offers, free its responder, stop its scheduled steps. */
  incidentCancelled(trx: Executor, incidentId: string): Promise<void>;
  /**
   * Optional: after a heartbeat that made a responder available (on duty, or free again), the
   * live incidents near them still waiting with nobody asked are offered at once, not at the next
   * escalation or re-offer. Never throws; the sweep remains the safety net.
   */
  responderAvailable?(responder: { responderId: string; environment: string; latitude: number; longitude: number }): void;
  /** Stops any timers of its own (server shutdown). */
  stop?(): void;
}

/** For an app built without an engine (startServer always plugs in server/dispatch/engine.ts). */
export const noDispatcher: Dispatcher = {
  incidentOpened: () => undefined,
  incidentCancelled: async () => undefined,
};
