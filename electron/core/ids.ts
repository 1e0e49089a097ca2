import { randomBytes } from 'node:crypto';
import { monotonicFactory } from 'ulidx';

/** Ids the kiosk makes: `vis_` a visit, `dec_` a scan decision, `att_` a needs-attention item, `op_` an outbox operation, `sos_` a panic. */
export type KioskIdPrefix = 'vis' | 'dec' | 'att' | 'op' | 'sos' | 'rep' | 'kiosk';

/** One generator per core, so tests with two kiosks in one process do not share state. */
export function idFactory(): (prefix: KioskIdPrefix, at: Date) => string {
  const next = monotonicFactory(() => randomBytes(4).readUInt32BE(0) / 0x1_0000_0000);
  return (prefix, at) => `${prefix}_${next(at.getTime())}`;
}
