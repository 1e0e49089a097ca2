import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAULTS, formatTable, runFault, setUp, tearDown, type FaultRow, type Rig } from './lib/suite.ts';

/**
 * Issue #12, "dependable under faults": three hosts on one PostgreSQL and one Redis behind
 * HAProxy, under load, one fault at a time. After each: no surviving host exited, every write
 * acknowledged with a 2xx is stored exactly once (read back through the API), every incident
 * event reaches the receiver, and every answer that is not a 2xx has the `{code, message}` shape.
 * `npm run faults` runs the same faults and prints the same table.
 */
describe.sequential('the fault suite', () => {
  let rig: Rig | undefined;
  const rows: FaultRow[] = [];
  const log = (line: string) => process.stdout.write(`${line}\n`);

  beforeAll(async () => {
    rig = await setUp(log);
  });
  afterAll(async () => {
    if (rows.length) log(`\n${formatTable(rows)}\n`);
    await tearDown(rig, false);
  });

  for (const fault of FAULTS) {
    it(fault.name, async () => {
      const row = await runFault(rig!, fault, { loadS: 20, workers: 6 });
      rows.push(row);
      expect(row.exits).toEqual([]);
      expect(row.missing).toBe(0);
      expect(row.unshaped).toBe(0);
      // A dependency fault is a 503 the client may retry, never an internal error.
      expect(row.errors['500'] ?? 0).toBe(0);
      expect(row.undelivered).toBe(0);
      // The load really ran through the fault, and the service came back.
      expect(row.ok2xx).toBeGreaterThan(0);
      expect(row.recoverS).toBeLessThan(60);
    });
  }
});
