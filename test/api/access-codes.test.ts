import { createPublicKey, verify } from 'node:crypto';
import QRCode from 'qrcode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePass } from '../../shared/pass.ts';
import { CODE_ALPHABET } from '../../shared/schemas/access.ts';
import { testEngine } from '../support/database.ts';
import { startTestServer, type TestOrganization, type TestServer, expectErrorBody } from '../support/server.ts';

const visitor = (overrides: Record<string, unknown> = {}) => ({
  visitor_name: 'Musa Bello',
  visitor_phone: '+2348030000001',
  purpose: 'Plumbing repair',
  host_user_id: 'resident-14B',
  ...overrides,
});

const HOUR = 60 * 60 * 1000;

describe('access codes', () => {
  let server: TestServer;
  let org: TestOrganization;
  beforeAll(async () => {
    server = await startTestServer();
    org = await server.createOrganization({ name: 'Banana Island Estate' });
  });
  afterAll(() => server.stop());

  const create = (body: Record<string, unknown> = {}, client = org.live) => client.post('/access-codes', visitor(body));
  const validate = (code: string, extra: Record<string, unknown> = {}, client = org.live) =>
    client.post('/access-codes/validate', { code, ...extra });
  const events = (resourceId: string) =>
    server.running.database.db.selectFrom('events').selectAll().where('resource_id', '=', resourceId).orderBy('event_id').execute();

  describe('generate', () => {
    it('answers 201 with an active code <PREFIX>-XXXX valid for 24 h from now, one use, and its signed pass', async () => {
      const res = await create();
      expect(res.status).toBe(201);
      const code = res.body.access_code;
      expect(code.code_id).toMatch(/^code_[0-9A-Z]{26}$/);
      expect(code.code).toMatch(new RegExp(`^BANA-[${CODE_ALPHABET}]{4}$`));
      expect(code).toMatchObject({
        visitor_name: 'Musa Bello',
        visitor_phone: '+2348030000001',
        visitor_email: null,
        purpose: 'Plumbing repair',
        host_user_id: 'resident-14B',
        entry_point: null,
        status: 'active',
        valid_from: '2026-11-22T10:00:00.000Z',
        valid_until: '2026-11-23T10:00:00.000Z',
        max_uses: 1,
        use_count: 0,
        uses_remaining: 1,
        revoked_at: null,
        created_at: '2026-11-22T10:00:00.000Z',
      });
      const pass = parsePass(code.qr_payload);
      expect(pass?.claims).toEqual({
        code: code.code,
        codeId: code.code_id,
        validFrom: Date.parse(code.valid_from),
        validUntil: Date.parse(code.valid_until),
        maxUses: 1,
      });
      expect((await events(code.code_id)).map((e) => e.type)).toEqual(['access_code.created']);
    });

    it('takes a window, several uses, an email and an entry point', async () => {
      const res = await create({
        valid_from: '2026-11-25T08:00:00+01:00',
        valid_until: '2026-11-25T18:00:00Z',
        max_uses: 5,
        visitor_email: 'musa@example.ng',
        entry_point: 'Gate B',
      });
      expect(res.status).toBe(201);
      expect(res.body.access_code).toMatchObject({
        valid_from: '2026-11-25T07:00:00.000Z',
        valid_until: '2026-11-25T18:00:00.000Z',
        max_uses: 5,
        uses_remaining: 5,
        visitor_email: 'musa@example.ng',
        entry_point: 'Gate B',
      });
    });

    it.each([
      [{ visitor_name: undefined }, 'visitor_name is required'],
      [{ visitor_phone: undefined }, 'visitor_phone is required'],
      [{ visitor_email: 'nope' }, 'visitor_email'],
      [{ max_uses: 0 }, 'max_uses'],
      [{ max_uses: 1001 }, 'max_uses'],
      [{ max_uses: 1.5 }, 'max_uses'],
      [{ valid_from: '2026-11-24T10:00:00Z', valid_until: '2026-11-24T09:00:00Z' }, 'valid_until: must be after valid_from'],
      [{ valid_from: '2026-11-20T10:00:00Z', valid_until: '2026-11-21T10:00:00Z' }, 'valid_until: must be in the future'],
      [{ valid_from: '2026-11-24T10:00:00Z', valid_until: '2027-11-24T10:00:00.001Z' }, 'valid_until: must be at most one year after valid_from'],
      [{ valid_until: '2027-11-23' }, 'valid_until: must be at most one year after valid_from'],
      [{ valid_until: 'tomorrow' }, 'valid_until'],
      [{ code: 'MINE-0001' }, 'code: unknown field'],
    ].map(([overrides, message]) => ({ overrides: overrides as Record<string, unknown>, message: message as string })))(
      'an invalid body answers 400: $message',
      async ({ overrides, message }) => {
        const res = await create(overrides);
        expect(res.status).toBe(400);
        expectErrorBody(res.body, 400, expect.stringContaining(message));
      },
    );

    it('may be valid for a year exactly, to the millisecond', async () => {
      const res = await create({ valid_from: '2026-11-24T10:00:00Z', valid_until: '2027-11-24T10:00:00Z' });
      expect(res.status).toBe(201);
      expect(res.body.access_code).toMatchObject({ valid_from: '2026-11-24T10:00:00.000Z', valid_until: '2027-11-24T10:00:00.000Z' });
    });

    it('never gives two live codes of a tenant the same string, even when created together', async () => {
      const busy = await server.createOrganization({ name: 'Busy Gate' });
      const answers = await Promise.all(Array.from({ length: 40 }, () => create({}, busy.live)));
      expect(answers.every((res) => res.status === 201)).toBe(true);
      const codes = answers.map((res) => res.body.access_code.code);
      expect(new Set(codes).size).toBe(40);
    });
  });

  describe('bulk generate', () => {
    it('answers 201 {access_codes, count} sharing purpose and window', async () => {
      const res = await org.live.post('/access-codes/bulk', {
        visitors: [
          { visitor_name: 'Ada', visitor_phone: '+2348011111111' },
          { visitor_name: 'Bayo', visitor_phone: '+2348022222222', max_uses: 2 },
          { visitor_name: 'Chika', visitor_phone: '+2348033333333' },
        ],
        purpose: 'Wedding guests',
        valid_until: '2026-11-22T23:00:00Z',
      });
      expect(res.status).toBe(201);
      expect(res.body.count).toBe(3);
      expect(res.body.access_codes.map((c: { visitor_name: string }) => c.visitor_name)).toEqual(['Ada', 'Bayo', 'Chika']);
      for (const code of res.body.access_codes) {
        expect(code).toMatchObject({ purpose: 'Wedding guests', valid_until: '2026-11-22T23:00:00.000Z', status: 'active' });
      }
      expect(res.body.access_codes[1].max_uses).toBe(2);
    });

    it('is all-or-nothing: one bad visitor is a 400 naming visitors[i].field and no code is made', async () => {
      const fresh = await server.createOrganization({ name: 'Bulk Check' });
      const res = await fresh.live.post('/access-codes/bulk', {
        visitors: [
          { visitor_name: 'Ada', visitor_phone: '+2348011111111' },
          { visitor_name: 'Bayo', visitor_phone: '+2348022222222' },
          { visitor_name: 'Chika' },
        ],
      });
      expect(res.status).toBe(400);
      expect(res.body.message).toBe('visitors[2].visitor_phone is required');
      expect((await fresh.live.get('/access-codes')).body.totalResults).toBe(0);
    });

    it('refuses a window over a year, and makes no code', async () => {
      const fresh = await server.createOrganization({ name: 'Bulk Year' });
      const res = await fresh.live.post('/access-codes/bulk', {
        visitors: [{ visitor_name: 'Ada', visitor_phone: '+2348011111111' }],
        valid_from: '2026-12-01',
        valid_until: '2027-12-01T00:00:00.001Z',
      });
      expect(res.status).toBe(400);
      expectErrorBody(res.body, 400, 'valid_until: must be at most one year after valid_from');
      expect((await fresh.live.get('/access-codes')).body.totalResults).toBe(0);
    });

    it('takes at most 50 visitors', async () => {
      const visitors = Array.from({ length: 51 }, (_, i) => ({ visitor_name: `V${i}`, visitor_phone: `+23480${String(i).padStart(8, '0')}` }));
      const res = await org.live.post('/access-codes/bulk', { visitors });
      expect(res.status).toBe(400);
      expect(res.body.message).toContain('visitors');
      const ok = await org.live.post('/access-codes/bulk', { visitors: visitors.slice(0, 50) });
      expect(ok.status).toBe(201);
      expect(ok.body.count).toBe(50);
    });
  });

  describe('validate', () => {
    it('a valid code answers who the visitor is, consumes a use and checks the visitor in', async () => {
      const { body } = await create({ max_uses: 2 });
      const code = body.access_code;
      const res = await validate(code.code, { validated_by: 'Guard Sani', entry_point: 'Gate A' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        valid: true,
        code_id: code.code_id,
        visitor: { name: 'Musa Bello', phone: '+2348030000001' },
        purpose: 'Plumbing repair',
        host_user_id: 'resident-14B',
        uses_remaining: 1,
        valid_until: code.valid_until,
        log_id: expect.stringMatching(/^log_/),
      });
      const log = await org.live.get(`/access-logs/${res.body.log_id}`);
      expect(log.body.access_log).toMatchObject({
        code_id: code.code_id,
        method: 'code',
        visitor_name: 'Musa Bello',
        entry_point: 'Gate A',
        recorded_by: 'Guard Sani',
        status: 'checked_in',
        checked_in_at: '2026-11-22T10:00:00.000Z',
      });
      const after = await org.live.get(`/access-codes/${code.code_id}`);
      expect(after.body.access_code).toMatchObject({ use_count: 1, uses_remaining: 1, status: 'active' });
      expect((await events(code.code_id)).map((e) => e.type)).toEqual(['access_code.created', 'access_code.used']);
      expect((await events(res.body.log_id)).map((e) => e.type)).toEqual(['visitor.arrived']);
    });

    it('a one-use code admits once, then answers Maximum uses reached and is used', async () => {
      const { body } = await create();
      expect((await validate(body.access_code.code)).body.valid).toBe(true);
      const again = await validate(body.access_code.code);
      expect(again.status).toBe(200);
      expect(again.body).toEqual({ valid: false, reason: 'Maximum uses reached' });
      expect((await org.live.get(`/access-codes/${body.access_code.code_id}`)).body.access_code.status).toBe('used');
    });

    it('ignores case and surrounding spaces', async () => {
      const { body } = await create();
      const res = await validate(`  ${body.access_code.code.toLowerCase()} \t`);
      expect(res.body.valid).toBe(true);
    });

    it('accepts the whole signed pass, in any case', async () => {
      const a = (await create()).body.access_code;
      expect((await validate(a.qr_payload)).body.valid).toBe(true);
      const b = (await create()).body.access_code;
      expect((await validate(b.qr_payload.toLowerCase())).body.valid).toBe(true);
    });

    it('a pass with any part altered is Code not found, and consumes nothing', async () => {
      const code = (await create({ max_uses: 3 })).body.access_code;
      const parts = code.qr_payload.split('.');
      const tampered = [
        [...parts.slice(0, 6), '9', parts[7]].join('.'), // max uses raised
        [...parts.slice(0, 5), String(Date.parse('2027-01-01T00:00:00Z')), ...parts.slice(6)].join('.'), // validity stretched
        [...parts.slice(0, 7), parts[7].slice(0, -1) + (parts[7].endsWith('A') ? 'B' : 'A')].join('.'), // signature changed
        code.qr_payload.slice(0, -3),
      ];
      for (const pass of tampered) expect((await validate(pass)).body).toEqual({ valid: false, reason: 'Code not found' });
      expect((await org.live.get(`/access-codes/${code.code_id}`)).body.access_code.use_count).toBe(0);
    });

    it("another organization's pass or code is Code not found", async () => {
      const other = await server.createOrganization({ name: 'Other Estate' });
      const theirs = (await create({}, other.live)).body.access_code;
      expect((await validate(theirs.qr_payload)).body).toEqual({ valid: false, reason: 'Code not found' });
      expect((await validate(theirs.code)).body).toEqual({ valid: false, reason: 'Code not found' });
      const sandbox = (await create({}, org.sandbox)).body.access_code;
      expect((await validate(sandbox.qr_payload)).body).toEqual({ valid: false, reason: 'Code not found' });
      expect((await validate(sandbox.code, {}, org.sandbox)).body.valid).toBe(true);
    });

    it.each([
      ['an unknown code', async () => 'BANA-ZZZZ', 'Code not found'],
      ['a revoked code', async (c: any) => (await org.live.delete(`/access-codes/${c.code_id}`), c.code), 'Code has been revoked'],
      [
        'a code not yet valid',
        async () => (await create({ valid_from: '2026-11-22T12:00:00Z', valid_until: '2026-11-22T14:00:00Z' })).body.access_code.code,
        'Code not yet active',
      ],
      [
        'a code past its validity',
        async () => {
          const code = (await create({ valid_until: '2026-11-22T10:30:00Z' })).body.access_code.code;
          server.clock.advance(31 * 60 * 1000);
          return code;
        },
        'Code has expired',
      ],
    ])('%s answers 200 valid false with the reason %s', async (_label, arrange, reason) => {
      const code = (await create()).body.access_code;
      const presented = await arrange(code);
      const res = await validate(presented);
      server.clock.set('2026-11-22T10:00:00.000Z');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ valid: false, reason });
    });

    it('checks in the contract order: revoked before used up, used up before not yet active or expired', async () => {
      const spent = (await create({ valid_until: '2026-11-22T11:00:00Z' })).body.access_code;
      await validate(spent.code);
      server.clock.advance(2 * HOUR);
      expect((await validate(spent.code)).body.reason).toBe('Maximum uses reached');
      server.clock.set('2026-11-22T10:00:00.000Z');

      const revokedEarly = (await create({ valid_from: '2026-11-23T10:00:00Z', valid_until: '2026-11-23T12:00:00Z' })).body.access_code;
      await org.live.delete(`/access-codes/${revokedEarly.code_id}`);
      expect((await validate(revokedEarly.code)).body.reason).toBe('Code has been revoked');
    });

    it('an offline scan replayed with scanned_at is judged at that time', async () => {
      const code = (await create({ valid_until: '2026-11-22T12:00:00Z' })).body.access_code;
      server.clock.set('2026-11-22T15:00:00.000Z');
      await server.running.runSweeps();
      expect((await org.live.get(`/access-codes/${code.code_id}`)).body.access_code.status).toBe('expired');
      const replay = await validate(code.code, { scanned_at: '2026-11-22T11:45:00Z' });
      expect(replay.body.valid).toBe(true);
      const log = await org.live.get(`/access-logs/${replay.body.log_id}`);
      expect(log.body.access_log.checked_in_at).toBe('2026-11-22T11:45:00.000Z');
      const late = await validate((await create({ valid_until: '2026-11-22T16:00:00Z' })).body.access_code.code, {
        scanned_at: '2026-11-22T16:30:00Z',
      });
      expect(late.status).toBe(400);
      expect(late.body.message).toBe('scanned_at: must not be in the future');
      server.clock.set('2026-11-22T10:00:00.000Z');
    });

    it('scanned_at more than 7 days old is a 400 naming it', async () => {
      const code = (await create()).body.access_code;
      const res = await validate(code.code, { scanned_at: '2026-11-14T10:00:00Z' });
      expect(res.status).toBe(400);
      expect(res.body.message).toBe('scanned_at: must be at most 7 days old');
    });

    it('N concurrent validations of a code with M uses admit exactly min(N, M)', async () => {
      const code = (await create({ max_uses: 3 })).body.access_code;
      const answers = await Promise.all(Array.from({ length: 10 }, () => validate(code.code)));
      expect(answers.filter((res) => res.body.valid === true)).toHaveLength(3);
      expect(answers.filter((res) => res.body.reason === 'Maximum uses reached')).toHaveLength(7);
      const after = (await org.live.get(`/access-codes/${code.code_id}`)).body.access_code;
      expect(after).toMatchObject({ use_count: 3, status: 'used' });
      const logs = await org.live.get(`/access-logs?limit=100`);
      expect(logs.body.results.filter((l: { code_id: string }) => l.code_id === code.code_id)).toHaveLength(3);
    });

    it('a kiosk replaying with the same Idempotency-Key gets the first answer and consumes nothing more', async () => {
      const code = (await create({ max_uses: 5 })).body.access_code;
      const headers = { 'idempotency-key': 'gate-1-scan-0042' };
      const first = await org.live.post('/access-codes/validate', { code: code.code }, { headers });
      const replay = await org.live.post('/access-codes/validate', { code: code.code }, { headers });
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.body).toEqual(first.body);
      expect((await org.live.get(`/access-codes/${code.code_id}`)).body.access_code.use_count).toBe(1);
    });

    it('more than 30 unknown codes a minute from one key answer 429, other keys unaffected', async () => {
      const guard = await org.keyWith(['access_codes:validate']);
      const other = await org.keyWith(['access_codes:validate']);
      const real = (await create()).body.access_code;
      for (let i = 0; i < 30; i++) {
        const res = await validate(`BANA-${CODE_ALPHABET[i]}${CODE_ALPHABET[i]}99`, {}, guard);
        expect(res.body).toEqual({ valid: false, reason: 'Code not found' });
      }
      const blocked = await validate(real.code, {}, guard);
      expect(blocked.status).toBe(429);
      expect(blocked.body.code).toBe(429);
      expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await validate(real.code, {}, other)).body.valid).toBe(true);
      server.clock.advance(61_000);
      expect((await validate('BANA-2222', {}, guard)).status).toBe(200);
      server.clock.set('2026-11-22T10:00:00.000Z');
    });

    it('once the guard trips for typed codes, a pass with a valid signature still validates; a forged one does not', async () => {
      const guard = await org.keyWith(['access_codes:validate']);
      const real = (await create({ max_uses: 3 })).body.access_code;
      for (let i = 0; i < 30; i++) await validate(`BANA-${CODE_ALPHABET[i]}${CODE_ALPHABET[i]}88`, {}, guard);
      expect((await validate(real.code, {}, guard)).status).toBe(429);

      const scanned = await validate(real.qr_payload, {}, guard);
      expect(scanned.status).toBe(200);
      expect(scanned.body).toMatchObject({ valid: true, code_id: real.code_id, uses_remaining: 2 });
      // Also in its own surrounding spaces, as a scanner may send it.
      expect((await validate(` ${real.qr_payload} `, {}, guard)).body).toMatchObject({ valid: true, uses_remaining: 1 });

      // The same pass claiming more uses is not genuine (its signature no longer matches): the guard applies.
      const parts = real.qr_payload.split('.');
      parts[6] = '999';
      const forged = await validate(parts.join('.'), {}, guard);
      expect(forged.status).toBe(429);
      expect((await validate(real.code, {}, guard)).status).toBe(429);
      server.clock.set('2026-11-22T10:00:00.000Z');
    });

    it.each([
      [{}, 'code is required'],
      [{ code: '' }, 'code'],
      [{ code: 'BANA-AAAA', scanned_at: 'yesterday' }, 'scanned_at'],
      [{ code: 'BANA-AAAA', pin: '1' }, 'pin: unknown field'],
    ].map(([body, message]) => ({ body, message: message as string })))('a bad validate body answers 400: $message', async ({ body, message }) => {
      const res = await org.live.post('/access-codes/validate', body);
      expect(res.status).toBe(400);
      expect(res.body.message).toContain(message);
    });
  });

  describe('list, get, revoke, stats', () => {
    let tenant: TestOrganization;
    let ids: Record<string, string>;
    beforeAll(async () => {
      tenant = await server.createOrganization({ name: 'Lekki Phase One' });
      const make = async (at: string, body: Record<string, unknown>) => {
        server.clock.set(at);
        return (await tenant.live.post('/access-codes', visitor(body))).body.access_code;
      };
      const ada = await make('2026-11-20T09:00:00.000Z', { visitor_name: 'Ada Eze', visitor_phone: '+2348011111111', valid_until: '2026-11-26T00:00:00Z' });
      const bayo = await make('2026-11-21T09:00:00.000Z', { visitor_name: 'Bayo Ade', visitor_phone: '+2348022222222', valid_until: '2026-11-26T00:00:00Z' });
      const chika = await make('2026-11-22T09:00:00.000Z', { visitor_name: '100%_Chika', visitor_phone: '+2348033333333', valid_until: '2026-11-26T00:00:00Z' });
      server.clock.set('2026-11-22T10:00:00.000Z');
      await tenant.live.post('/access-codes/validate', { code: ada.code });
      await tenant.live.delete(`/access-codes/${bayo.code_id}`, { body: { reason: 'Visit cancelled' } });
      ids = { ada: ada.code_id, bayo: bayo.code_id, chika: chika.code_id, chikaCode: chika.code };
    });

    it('lists newest first in the page shape', async () => {
      const res = await tenant.live.get('/access-codes');
      expect(res.body).toMatchObject({ page: 1, limit: 20, totalPages: 1, totalResults: 3 });
      expect(res.body.results.map((c: { code_id: string }) => c.code_id)).toEqual([ids.chika, ids.bayo, ids.ada]);
    });

    it.each([
      ['status=used', ['ada']],
      ['status=revoked', ['bayo']],
      ['status=active', ['chika']],
      ['visitor_phone=%2B2348022222222', ['bayo']],
      ['search=eze', ['ada']],
      ['search=100%25_', ['chika']],
      ['search=%25', ['chika']],
      ['from_date=2026-11-21T09:00:00Z', ['chika', 'bayo']],
      ['to_date=2026-11-21T09:00:00Z', ['ada']],
    ])('filters with %s', async (query, expected) => {
      const res = await tenant.live.get(`/access-codes?${query}`);
      expect(res.status).toBe(200);
      expect(res.body.results.map((c: { code_id: string }) => c.code_id)).toEqual(expected.map((name) => ids[name]));
    });

    it('searches by the code itself', async () => {
      const res = await tenant.live.get(`/access-codes?search=${ids.chikaCode!.slice(-4).toLowerCase()}`);
      expect(res.body.results.map((c: { code_id: string }) => c.code_id)).toContain(ids.chika);
    });

    it.each([['status=lost'], ['limit=0'], ['page=0'], ['from_date=monday']])('%s answers 400 naming the field', async (query) => {
      const res = await tenant.live.get(`/access-codes?${query}`);
      expect(res.status).toBe(400);
      expect(res.body.message).toContain(query.split('=')[0]);
    });

    it('gets one code; another organization or environment gets 404', async () => {
      expect((await tenant.live.get(`/access-codes/${ids.ada}`)).body.access_code.code_id).toBe(ids.ada);
      expect((await org.live.get(`/access-codes/${ids.ada}`)).status).toBe(404);
      expect((await tenant.sandbox.get(`/access-codes/${ids.ada}`)).status).toBe(404);
      expect((await tenant.live.get('/access-codes/code_missing')).body).toEqual({ code: 404, message: 'Access code not found' });
    });

    it('revoke answers the revoked code with its reason; revoking a final code is a 409 naming its status', async () => {
      const revoked = (await tenant.live.get(`/access-codes/${ids.bayo}`)).body.access_code;
      expect(revoked).toMatchObject({ status: 'revoked', revoke_reason: 'Visit cancelled', revoked_at: '2026-11-22T10:00:00.000Z', uses_remaining: 0 });
      expect((await tenant.live.delete(`/access-codes/${ids.bayo}`)).body).toEqual({ code: 409, message: 'Access code is already revoked' });
      expect((await tenant.live.delete(`/access-codes/${ids.ada}`)).body).toEqual({ code: 409, message: 'Access code is already used' });
      expect((await org.live.delete(`/access-codes/${ids.chika}`)).status).toBe(404);
      const types = (await events(ids.bayo!)).map((e) => e.type);
      expect(types).toEqual(['access_code.created', 'access_code.revoked']);
    });

    it('stats count codes created in the window', async () => {
      const all = await tenant.live.get('/access-codes/stats');
      expect(all.body).toEqual({ total_generated: 3, total_used: 1, total_expired: 0, total_revoked: 1, total_active: 1 });
      const window = await tenant.live.get('/access-codes/stats?from_date=2026-11-21T00:00:00Z&to_date=2026-11-22T00:00:00Z');
      expect(window.body).toEqual({ total_generated: 1, total_used: 0, total_expired: 0, total_revoked: 1, total_active: 0 });
    });
  });

  describe('expiry sweep', () => {
    it('expires an active code past valid_until exactly once, with one access_code.expired event', async () => {
      const code = (await create({ valid_until: '2026-11-22T11:00:00Z' })).body.access_code;
      const unaffected = (await create({ valid_until: '2026-11-22T13:00:00Z' })).body.access_code;
      server.clock.set('2026-11-22T11:00:00.000Z');
      // Several hosts share a PostgreSQL database; a SQLite file has one server process.
      const second = testEngine() === 'postgres' ? await startTestServer({ database: server.database, clock: server.clock }) : server;
      try {
        await Promise.all([server.running.runSweeps(), second.running.runSweeps(), server.running.runSweeps()]);
      } finally {
        if (second !== server) await second.stop();
        server.clock.set('2026-11-22T10:00:00.000Z');
      }
      expect((await org.live.get(`/access-codes/${code.code_id}`)).body.access_code.status).toBe('expired');
      expect((await org.live.get(`/access-codes/${unaffected.code_id}`)).body.access_code.status).toBe('active');
      const expired = (await events(code.code_id)).filter((e) => e.type === 'access_code.expired');
      expect(expired).toHaveLength(1);
      expect(JSON.parse(expired[0]!.data).status).toBe('expired');
    });
  });

  describe('QR image, pass keys and change feed', () => {
    it('the QR image encodes the signed pass, as SVG or PNG', async () => {
      const code = (await create()).body.access_code;
      const svg = await org.live.get(`/access-codes/${code.code_id}/qr`);
      expect(svg.status).toBe(200);
      expect(svg.headers.get('content-type')).toContain('image/svg+xml');
      expect(svg.body).toBe(await QRCode.toString(code.qr_payload, { type: 'svg', errorCorrectionLevel: 'M', margin: 4 }));
      const png = await fetch(`${server.baseUrl}/access-codes/${code.code_id}/qr?format=png`, {
        headers: { authorization: `Bearer ${org.keys.live}` },
      });
      expect(png.headers.get('content-type')).toBe('image/png');
      const bytes = new Uint8Array(await png.arrayBuffer());
      expect([...bytes.slice(0, 8)]).toEqual([137, 80, 78, 71, 13, 10, 26, 10]);
      expect(QRCode.create(code.qr_payload, { errorCorrectionLevel: 'M' }).modules.size).toBeLessThanOrEqual(49);
      expect((await org.live.get(`/access-codes/${code.code_id}/qr?format=gif`)).status).toBe(400);
    });

    it('the public pass key verifies a pass offline, with node:crypto alone', async () => {
      const code = (await create()).body.access_code;
      const { body } = await org.live.get('/access-codes/pass-keys');
      expect(body.keys).toHaveLength(1);
      const key = body.keys[0];
      expect(key).toMatchObject({ algorithm: 'Ed25519', kid: parsePass(code.qr_payload)!.kid });
      const raw = Buffer.from(key.public_key, 'base64url');
      const publicKey = createPublicKey({ key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), raw]), format: 'der', type: 'spki' });
      const pass = parsePass(code.qr_payload)!;
      expect(verify(null, Buffer.from(pass.signedText), publicKey, pass.signature)).toBe(true);
      expect(pass.signedText.endsWith('.1')).toBe(true);
      expect(verify(null, Buffer.from(pass.signedText.replace(/\.1$/, '.2')), publicKey, pass.signature)).toBe(false);
    });

    it('answers the pass key before the first code, and signs the first pass with it, so a kiosk set up early verifies it offline', async () => {
      const fresh = await server.createOrganization({ name: 'New Estate' });
      const before = await fresh.live.get('/access-codes/pass-keys');
      expect(before.body.keys).toHaveLength(1);
      expect((await fresh.live.get('/access-codes/pass-keys')).body).toEqual(before.body);
      const first = await fresh.live.post('/access-codes', { visitor_name: 'Ada Obi', visitor_phone: '+2348012345678' });
      expect(parsePass(first.body.access_code.qr_payload)!.kid).toBe(before.body.keys[0].kid);
      expect((await fresh.sandbox.get('/access-codes/pass-keys')).body.keys[0].kid).not.toBe(before.body.keys[0].kid);
    });

    it('the change feed answers codes changed after a cursor, in change order, including revocations, uses and expiries', async () => {
      const gate = await server.createOrganization({ name: 'Feed Estate' });
      const made = [];
      for (let i = 0; i < 5; i++) made.push((await create({ valid_until: '2026-11-22T12:00:00Z' }, gate.live)).body.access_code);
      const full = await gate.live.get('/access-codes/changes');
      expect(full.body.codes.map((c: { code_id: string }) => c.code_id)).toEqual(made.map((c) => c.code_id));
      expect(full.body.has_more).toBe(false);
      const cursor = full.body.next_cursor;

      await gate.live.post('/access-codes/validate', { code: made[3].code });
      await gate.live.delete(`/access-codes/${made[1].code_id}`);
      const changes = await gate.live.get(`/access-codes/changes?cursor=${cursor}`);
      expect(changes.body.codes.map((c: { code_id: string; status: string }) => [c.code_id, c.status])).toEqual([
        [made[3].code_id, 'used'],
        [made[1].code_id, 'revoked'],
      ]);
      expect(changes.body.next_cursor).toBeGreaterThan(cursor);

      server.clock.set('2026-11-22T12:00:00.000Z');
      await server.running.runSweeps();
      server.clock.set('2026-11-22T10:00:00.000Z');
      const expired = await gate.live.get(`/access-codes/changes?cursor=${changes.body.next_cursor}`);
      expect(expired.body.codes.map((c: { code_id: string; status: string }) => [c.code_id, c.status])).toEqual([
        [made[0].code_id, 'expired'],
        [made[2].code_id, 'expired'],
        [made[4].code_id, 'expired'],
      ]);
      const nothing = await gate.live.get(`/access-codes/changes?cursor=${expired.body.next_cursor}`);
      expect(nothing.body).toEqual({ codes: [], next_cursor: expired.body.next_cursor, has_more: false });
    });

    it('the feed pages with limit and has_more', async () => {
      const gate = await server.createOrganization({ name: 'Paged Feed' });
      for (let i = 0; i < 5; i++) await create({}, gate.live);
      const first = await gate.live.get('/access-codes/changes?limit=2');
      expect(first.body.codes).toHaveLength(2);
      expect(first.body.has_more).toBe(true);
      const second = await gate.live.get(`/access-codes/changes?limit=2&cursor=${first.body.next_cursor}`);
      const third = await gate.live.get(`/access-codes/changes?limit=2&cursor=${second.body.next_cursor}`);
      expect(third.body.has_more).toBe(false);
      const seen = [...first.body.codes, ...second.body.codes, ...third.body.codes].map((c: { code_id: string }) => c.code_id);
      expect(new Set(seen).size).toBe(5);
    });

    it('feed and pass keys need access_codes:validate; the QR needs access_codes:read', async () => {
      const reader = await org.keyWith(['access_codes:read']);
      expect((await reader.get('/access-codes/changes')).status).toBe(403);
      expect((await reader.get('/access-codes/pass-keys')).status).toBe(403);
      const gateKey = await org.keyWith(['access_codes:validate']);
      expect((await gateKey.get('/access-codes/changes')).status).toBe(200);
      const code = (await create()).body.access_code;
      expect((await gateKey.get(`/access-codes/${code.code_id}/qr`)).status).toBe(403);
    });
  });
});
