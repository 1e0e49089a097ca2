/**
 * Dispatch's search for responders near an incident, as other features may use it: the
 * incidents store reads an SOS's first-round candidates in the statement that creates it
 * (incidents/store.ts, `insertIncidentOpenings`). The SQL stays in this feature's store.
 */
export { respondersInBoxQuery, respondersSearchOf, type RespondersSearch } from './store.ts';
