import type { Schemas } from '../api.ts';

/** One event as `GET /events` lists it and the stream sends it (`data:`). */
export type LiveEvent = Schemas['Event'];
