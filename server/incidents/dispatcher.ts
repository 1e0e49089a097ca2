import type { Incident } from '../../shared/schemas/incidents.ts';

/**
 * The seam between the incident API and the dispatch engine. The API calls it after the
 * change has committed; the engine (responder network, escalation sweep, simulated sandbox
 * network) implements it. Deadlines live in the incident row, so an engine that was down
 * when it was called still finds the work by reading the database.
 */
export interface Dispatcher {
  incidentOpened(incident: Incident): void;
  incidentCancelled(incident: Incident): void;
}

/** For an app built without an engine (startServer always plugs in server/dispatch/engine.ts). */
export const noDispatcher: Dispatcher = {
  incidentOpened: () => undefined,
  incidentCancelled: () => undefined,
};
