import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { findAccessCodeByCode } from '../../server/access-codes/store.ts';
import type { Tenant } from '../../server/db/schema.ts';
import { testEngine } from '../support/database.ts';
import { startTestServer, type TestOrganization, type TestServer } from '../support/server.ts';

// A validation looks its typed code up before its transaction. On PostgreSQL the lookups of
// validations that arrive together are one query (server/db/coalesced-read.ts); each key carries
// its own tenant, so a code shared in a batch with another organization's lookup answers only
// its own organization and environment.
describe('code lookups made at once', () => {
  let server: TestServer;
  let ada: TestOrganization;
  let bola: TestOrganization;
  const codes: Record<'adaLive' | 'adaSandbox' | 'bolaLive', string[]> = { adaLive: [], adaSandbox: [], bolaLive: [] };

  beforeAll(async () => {
    server = await startTestServer();
    ada = await server.createOrganization({ name: 'Ada Estates' });
    bola = await server.createOrganization({ name: 'Bola Towers' });
    const make = async (org: TestOrganization, client: TestOrganization['live']) =>
      (await client.post('/access-codes', { visitor_name: `Visitor of ${org.organizationId}`, visitor_phone: '+2348030000001' })).body.access_code.code as string;
    for (let i = 0; i < 3; i++) {
      codes.adaLive.push(await make(ada, ada.live));
      codes.adaSandbox.push(await make(ada, ada.sandbox));
      codes.bolaLive.push(await make(bola, bola.live));
    }
  });
  afterAll(() => server.stop());

  it('answers each caller its own code, and another tenant’s as not found, from one query on PostgreSQL', async () => {
    const db = server.running.database.db;
    const adaLive: Tenant = { organizationId: ada.organizationId, environment: 'live' };
    const adaSandbox: Tenant = { organizationId: ada.organizationId, environment: 'sandbox' };
    const bolaLive: Tenant = { organizationId: bola.organizationId, environment: 'live' };
    const asks = [
      ...codes.adaLive.map((code) => ({ tenant: adaLive, code, own: true })),
      ...codes.bolaLive.map((code) => ({ tenant: bolaLive, code, own: true })),
      ...codes.adaSandbox.map((code) => ({ tenant: adaSandbox, code, own: true })),
      // The same codes asked for by the wrong organization or environment, in the same batch.
      ...codes.bolaLive.map((code) => ({ tenant: adaLive, code, own: false })),
      ...codes.adaLive.map((code) => ({ tenant: bolaLive, code, own: false })),
      ...codes.adaLive.map((code) => ({ tenant: adaSandbox, code, own: false })),
      { tenant: adaLive, code: 'NOPE-0000', own: false },
      // One code asked for twice in the batch.
      { tenant: adaLive, code: codes.adaLive[0]!, own: true },
    ];
    const queries = vi.spyOn(db, 'executeQuery');
    try {
      const found = await Promise.all(asks.map((ask) => findAccessCodeByCode(db, ask.tenant, ask.code)));
      found.forEach((row, i) => {
        const ask = asks[i]!;
        const who = `${ask.code} for ${ask.tenant.organizationId}/${ask.tenant.environment}`;
        if (!ask.own) return expect(row, who).toBeUndefined();
        expect(row, who).toMatchObject({ code: ask.code, organization_id: ask.tenant.organizationId, environment: ask.tenant.environment });
      });
      expect(queries).toHaveBeenCalledTimes(testEngine() === 'postgres' ? 1 : asks.length);
    } finally {
      queries.mockRestore();
    }
  });

  it('validations of two organizations at once each admit their own codes only', async () => {
    const answers = await Promise.all([
      ...codes.adaLive.map((code) => ada.live.post('/access-codes/validate', { code })),
      ...codes.adaLive.map((code) => bola.live.post('/access-codes/validate', { code })),
      ...codes.bolaLive.map((code) => bola.live.post('/access-codes/validate', { code })),
      ...codes.bolaLive.map((code) => ada.sandbox.post('/access-codes/validate', { code })),
    ]);
    expect(answers.map((res) => [res.status, res.body.valid === true ? 'admitted' : res.body.reason])).toEqual([
      ...codes.adaLive.map(() => [200, 'admitted']),
      ...codes.adaLive.map(() => [200, 'Code not found']),
      ...codes.bolaLive.map(() => [200, 'admitted']),
      ...codes.bolaLive.map(() => [200, 'Code not found']),
    ]);
  });
});
