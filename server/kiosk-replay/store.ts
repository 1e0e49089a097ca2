/** The tenant's batch lock lives with the other batches' helpers (server/db/serial-batches.ts): code validations taken together wait on it too. */
export { waitForOtherBatches } from '../db/serial-batches.ts';
