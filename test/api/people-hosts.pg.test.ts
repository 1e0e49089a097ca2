import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConsoleBrowser, joinConsole, onHost } from '../support/console.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/** Issue #32, finding 5 on two hosts over one PostgreSQL database: the owner rule holds under a row lock. */
let database: TestDatabase;
let a: TestServer;
let b: TestServer;
beforeAll(async () => {
  database = await createTestDatabase('postgres');
  a = await startTestServer({ database });
  b = await startTestServer({ database });
});
afterAll(async () => {
  await a?.stop();
  await b?.stop();
  await database?.drop();
});


describe('at least one owner, across two hosts', () => {
  it('two owners, each on their own host, removing or demoting each other at once: one owner always remains (ten rounds each)', async () => {
    for (const change of ['remove', 'demote'] as const) {
      for (let round = 0; round < 10; round++) {
        const org = await a.createOrganization({ name: `Two Hosts ${change} ${round}` });
        const first = await joinConsole(a, org.organizationId, 'owner');
        const second = await joinConsole(a, org.organizationId, 'owner');
        const act = (browser: ConsoleBrowser, target: string) =>
          change === 'remove' ? browser.delete(`/console/people/${target}`) : browser.patch(`/console/people/${target}`, { role: 'viewer' });
        const answers = await Promise.all([act(first.browser, second.personId), act(onHost(b, second), first.personId)]);
        expect(answers.filter((answer) => answer.status === 200), JSON.stringify(answers.map((answer) => answer.body))).toHaveLength(1);
        const owners = await a.running.database.db.selectFrom('memberships').select('person_id').where('organization_id', '=', org.organizationId).where('role', '=', 'owner').execute();
        expect(owners).toHaveLength(1);
      }
    }
  });
});
