/** One event as `GET /events` lists it and the stream sends it (`data:`). */
export interface LiveEvent {
  id: string;
  type: string;
  created_at: string;
  data: Record<string, unknown>;
}
