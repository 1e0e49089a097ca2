import { monotonicFactory } from 'ulidx';

export type IdPrefix = 'org' | 'key' | 'inc' | 'evt' | 'whe' | 'whd' | 'rsp' | 'code' | 'log';

// Monotonic: two ids made in the same millisecond still sort in the order they were made, so
// the event log and every list keep creation order. The one piece of process-wide state here.
const nextUlid = monotonicFactory();

/** `inc_01JD7ZK3Q0C7W5N2Y8S4V6X9AB`: a prefix, then a ULID (URL-safe, sortable by creation). */
export function newId(prefix: IdPrefix, at: Date = new Date()): string {
  return `${prefix}_${nextUlid(at.getTime())}`;
}
