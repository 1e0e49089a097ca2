import type { Incident } from '../../shared/schemas/incidents.ts';
import type { Executor } from '../db/schema.ts';

/**
 * The seam between the incident API and the dispatch engine. The API calls it after the
 * change has committed; the engine (responder network, escalation sweep, simulated sandbox
 * network) implements it. Deadlines live in the incident row, so an engine that was down
 * when it was called still finds the work by reading the database.
 */
export interface Dispatcher {
  /** After the commit that opened it: offer it (a sweep repeats this for an incident missed here). */
  incidentOpened(incident: Incident): void;
  /** Inside the cancelling transaction: withdraw its offers, free its responder, stop its scheduled steps. */
  incidentCancelled(trx: Executor, incidentId: string): Promise<void>;
  /** Stops any timers of its own (server shutdown). */
  stop?(): void;
}

/** For an app built without an engine (startServer always plugs in server/dispatch/engine.ts). */
export const noDispatcher: Dispatcher = {
  incidentOpened: () => undefined,
  incidentCancelled: async () => undefined,
};
