import { ulid } from 'ulidx';

export type IdPrefix = 'org' | 'key' | 'inc' | 'evt' | 'whe' | 'whd' | 'rsp' | 'code' | 'log';

/** `inc_01JD7ZK3Q0C7W5N2Y8S4V6X9AB`: a prefix, then a ULID (URL-safe, sortable by creation time). */
export function newId(prefix: IdPrefix, at: Date = new Date()): string {
  return `${prefix}_${ulid(at.getTime())}`;
}
