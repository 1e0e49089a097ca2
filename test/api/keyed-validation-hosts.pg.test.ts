import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createMigratedDatabase } from '../support/database.ts';
import { startTestServer } from '../support/server.ts';

/**
 * A validation sent with an Idempotency-Key reads its key's record before anything (an answered
 * key replays at once), then claims the key in the transaction that admits it, which on
 * PostgreSQL a tenant's validations on one host share (server/db/serial-batches.ts). Between the
 * two, another host may answer the same key: a kiosk that retried through the other host while
 * the first attempt waited its turn. The claim must then answer the stored answer (or 409), and
 * the code must be used once, never twice.
 */
describe('a keyed validation whose key another host answers between its check and its claim', () => {
  it('replays the answer the other host stored, and the code is used once', async () => {
    const database = await createMigratedDatabase();
    const hostA = await startTestServer({ database });
    const hostB = await startTestServer({ database });
    const holder = new pg.Client({ connectionString: database.url });
    const tableLock = new pg.Client({ connectionString: database.url });
    // Outside any transaction: pg_stat_activity is read once per transaction.
    const watcher = new pg.Client({ connectionString: database.url });
    await holder.connect();
    await tableLock.connect();
    await watcher.connect();
    try {
      const org = await hostA.createOrganization();
      const a = hostA.client(org.keys.live);
      const b = hostB.client(org.keys.live);
      const make = async (name: string, maxUses: number) => (await a.post('/access-codes', { visitor_name: name, visitor_phone: '+2348030000101', max_uses: maxUses })).body.access_code;
      const [held, retried, other] = [await make('Held Visitor', 5), await make('Retried Visitor', 1), await make('Other Visitor', 1)];
      const waiting = async (n: number) =>
        expect
          .poll(async () => (await watcher.query(`select count(*)::int as n from pg_locks l join pg_stat_activity s using (pid) where not l.granted and s.datname = current_database()`)).rows[0].n, { timeout: 10_000, interval: 25 })
          .toBe(n);

      // Host B's turn for the tenant's validations is taken: one validation waits on a code held here.
      await holder.query('begin');
      await holder.query('select 1 from access_codes where code_id = $1 for update', [held.code_id]);
      const first = b.post('/access-codes/validate', { code: held.code });
      await waiting(1);

      // The kiosk's scan reaches host B: its check of the key is held on the keys' table until
      // released, so that it reads the key before host A answers it.
      await tableLock.query('begin');
      await tableLock.query('lock table idempotency_requests in access exclusive mode');
      const scan = { code: retried.code, entry_point: 'Gate 2' };
      const key = { headers: { 'idempotency-key': 'kiosk-2.scan-41' } };
      let settled = false;
      const onB = b.post('/access-codes/validate', scan, key).finally(() => void (settled = true));
      // A second keyed scan behind it, so the key is claimed in a transaction shared with another validation.
      const alsoOnB = b.post('/access-codes/validate', { code: other.code, entry_point: 'Gate 2' }, { headers: { 'idempotency-key': 'kiosk-2.scan-42' } });
      await waiting(3);
      await tableLock.query('commit');
      await waiting(1);

      // Its retry through host A runs and answers first.
      const onA = await a.post('/access-codes/validate', scan, key);
      expect(onA.status, JSON.stringify(onA.body)).toBe(200);
      expect(onA.body.valid).toBe(true);
      expect(onA.headers.get('idempotent-replayed')).toBeNull();
      // Host B's scan read no answer: it is still waiting its turn behind the held code, not replayed from its check.
      expect((await b.get(`/access-codes/${retried.code_id}`)).status).toBe(200);
      expect(settled).toBe(false);

      await holder.query('rollback');
      expect((await first).body.valid).toBe(true);
      const answer = await onB;
      // The stored answer replayed (a 409 would be allowed too); never a second admission.
      if (answer.status === 409) expect(answer.body.message).toContain('Idempotency-Key');
      else {
        expect(answer.status, JSON.stringify(answer.body)).toBe(200);
        expect(answer.headers.get('idempotent-replayed')).toBe('true');
        expect(answer.body).toEqual(onA.body);
      }
      const alsoAnswer = await alsoOnB;
      expect([alsoAnswer.status, alsoAnswer.body.valid, alsoAnswer.headers.get('idempotent-replayed')]).toEqual([200, true, null]);

      // The code was used once: one use spent and one visit.
      const code = await a.get(`/access-codes/${retried.code_id}`);
      expect(code.body.access_code).toMatchObject({ status: 'used', uses_remaining: 0 });
      const rows = await hostA.running.database.db.selectFrom('access_logs').select('log_id').where('code_id', '=', retried.code_id).execute();
      expect(rows.map((row) => row.log_id)).toEqual([onA.body.log_id]);
    } finally {
      await holder.query('rollback').catch(() => undefined);
      await tableLock.query('rollback').catch(() => undefined);
      await holder.end();
      await tableLock.end();
      await watcher.end();
      await hostB.stop();
      await hostA.stop();
      await database.drop();
    }
  }, 60_000);
});
