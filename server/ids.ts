import { randomBytes } from 'node:crypto';
import { monotonicFactory } from 'ulidx';

export type IdPrefix = 'org' | 'key' | 'inc' | 'evt' | 'whe' | 'whd' | 'whj' | 'rsp' | 'ofr' | 'code' | 'log' | 'per' | 'inv' | 'ses' | 'aud' | 'rcl' | 'site' | 'ent' | 'sms' | 'stf' | 'sinv' | 'sses' | 'saud' | 'area' | 'shf' | 'alrt';

/**
 * Uniform numbers in [0, 1) from the CSPRNG, read from a 4 KiB pool: ulidx's default calls
 * crypto.getRandomValues once per character (about 32 µs an id under load).
 */
function pooledRandom(): () => number {
  let pool = randomBytes(4096);
  let offset = 0;
  return () => {
    if (offset + 4 > pool.length) {
      pool = randomBytes(4096);
      offset = 0;
    }
    const value = pool.readUInt32BE(offset) / 0x1_0000_0000;
    offset += 4;
    return value;
  };
}

// Monotonic: two ids made in the same millisecond still sort in the order they were made, so
// the event log and every list keep creation order. The one piece of process-wide state here.
const nextUlid = monotonicFactory(pooledRandom());

/** `inc_01JD7ZK3Q0C7W5N2Y8S4V6X9AB`: a prefix, then a ULID (URL-safe, sortable by creation). */
export function newId(prefix: IdPrefix, at: Date = new Date()): string {
  return `${prefix}_${nextUlid(at.getTime())}`;
}
