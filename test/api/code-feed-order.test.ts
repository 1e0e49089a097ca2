import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestServer, type ApiClient, type TestOrganization, type TestServer } from '../support/server.ts';

/**
 * The kiosk's code cache follows `GET /access-codes/changes` by cursor. That is only safe if
 * change numbers become visible in the order they were handed out: a change that commits after
 * a later number was read is skipped by every kiosk past it, and a revoked pass would keep
 * opening the gate offline. These tests load a tenant with everything that changes codes at
 * once (single validations, revocations, kiosk batches naming the same codes in opposite
 * orders) while a follower reads the feed, then check that the follower missed nothing and no
 * request failed (two transactions waiting on each other's locks is a 500 on PostgreSQL).
 */

const GATE_SCOPES = ['access_codes:validate', 'access_codes:write', 'logs:read'] as const;

interface FeedCode {
  code_id: string;
  code: string;
  status: string;
  use_count: number;
}

let server: TestServer;
let org: TestOrganization;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());
beforeEach(async () => {
  org = await server.createOrganization({ name: 'Rush Hour Estate' });
});

async function newCodes(count: number, maxUses: number): Promise<FeedCode[]> {
  const codes: FeedCode[] = [];
  while (codes.length < count) {
    const res = await org.live.post('/access-codes/bulk', {
      purpose: 'Delivery',
      visitors: Array.from({ length: Math.min(50, count - codes.length) }, (_, i) => ({
        visitor_name: `Visitor ${codes.length + i}`,
        visitor_phone: '+2348030000001',
        max_uses: maxUses,
      })),
    });
    expect(res.status).toBe(201);
    codes.push(...(res.body.access_codes as FeedCode[]));
  }
  return codes;
}

/** Reads the feed from `cursor` until it has nothing more, keeping each code's newest row. */
async function followFeed(client: ApiClient, seen: Map<string, FeedCode>, cursor: number): Promise<number> {
  for (;;) {
    const page = await client.get(`/access-codes/changes?cursor=${cursor}&limit=500`);
    expect(page.status).toBe(200);
    for (const code of page.body.codes as FeedCode[]) seen.set(code.code_id, code);
    cursor = page.body.next_cursor as number;
    if (!page.body.has_more) return cursor;
  }
}

const shuffled = <T>(items: T[]) => items.map((item) => ({ item, at: Math.random() })).sort((a, b) => a.at - b.at).map(({ item }) => item);

describe('the code change feed under concurrent changes', () => {
  it('a kiosk following the feed during a rush ends with every code exactly as stored, and no change fails', async () => {
    // Codes changed once each (a single use, or a revocation): a change the follower skips is
    // never repaired by a later one, so any gap in the order shows in the end state.
    const once = await newCodes(60, 1);
    // Codes everyone fights over: validated singly and by two batches in opposite orders.
    const contended = await newCodes(6, 100);
    const follower = await org.keyWith(['access_codes:validate']);
    const singles = await org.keyWith(['access_codes:validate']);
    const batchKeys = [await org.keyWith([...GATE_SCOPES]), await org.keyWith([...GATE_SCOPES])];

    const seen = new Map<string, FeedCode>();
    let cursor = await followFeed(follower, seen, 0);
    let loading = true;
    const following = (async () => {
      while (loading) {
        cursor = await followFeed(follower, seen, cursor);
        await new Promise((resolve) => setTimeout(resolve, 3));
      }
    })();

    const revoked = once.slice(0, 12);
    const validatedSingly = once.slice(12, 36);
    const validatedInBatches = once.slice(36);
    const batch = (client: ApiClient, codes: FeedCode[], tag: string) =>
      client.post('/kiosk/replay', {
        ops: codes.map((code, i) => ({ operation: 'validate', idempotency_key: `${tag}.${i}`, body: { code: code.code, entry_point: 'Gate B' } })),
      });
    const forward = [...contended, ...validatedInBatches.slice(0, 12)];
    const backward = [...validatedInBatches.slice(12), ...contended].reverse();
    const answers = await Promise.all(
      shuffled<() => Promise<{ status: number; body: unknown }>>([
        ...revoked.map((code) => () => org.live.delete(`/access-codes/${code.code_id}`)),
        ...validatedSingly.map((code) => () => singles.post('/access-codes/validate', { code: code.code, entry_point: 'Gate A' })),
        ...contended.flatMap((code) => [
          () => singles.post('/access-codes/validate', { code: code.code, entry_point: 'Gate A' }),
          () => singles.post('/access-codes/validate', { code: code.code, entry_point: 'Gate C' }),
        ]),
        () => batch(batchKeys[0]!, forward, 'kiosk-1'),
        () => batch(batchKeys[1]!, backward, 'kiosk-2'),
      ]).map((send) => send()),
    );
    loading = false;
    await following;

    cursor = await followFeed(follower, seen, cursor);
    const stored = new Map<string, FeedCode>();
    await followFeed(follower, stored, 0);
    for (const code of [...once, ...contended]) {
      expect(seen.get(code.code_id), code.code).toMatchObject({ status: stored.get(code.code_id)!.status, use_count: stored.get(code.code_id)!.use_count });
    }

    expect(answers.filter((res) => res.status >= 300).map((res) => [res.status, res.body])).toEqual([]);
    for (const res of answers) {
      const results = (res.body as { results?: Array<{ status: number; body: { valid?: boolean } }> }).results;
      if (results) expect(results.map((item) => [item.status, item.body.valid])).toEqual(results.map(() => [200, true]));
    }
    expect(revoked.map((code) => stored.get(code.code_id)!.status)).toEqual(revoked.map(() => 'revoked'));
    expect([...validatedSingly, ...validatedInBatches].map((code) => stored.get(code.code_id)!.status)).toEqual(
      [...validatedSingly, ...validatedInBatches].map(() => 'used'),
    );
    // Each contended code: two single validations and one from each batch.
    expect(contended.map((code) => stored.get(code.code_id)!.use_count)).toEqual(contended.map(() => 4));
  });

  it('codes revoked while they are being validated end revoked with the uses admitted before, and no request fails', async () => {
    const codes = await newCodes(8, 50);
    const guard = await org.keyWith(['access_codes:validate']);
    const sent = shuffled(
      codes.flatMap((code) => [
        ...Array.from({ length: 6 }, () => ({ code, send: () => guard.post('/access-codes/validate', { code: code.code }) })),
        { code, send: () => org.live.delete(`/access-codes/${code.code_id}`) },
      ]),
    );
    const feed = new Map<string, FeedCode>();
    const before = await followFeed(guard, feed, 0);
    const answers = await Promise.all(sent.map(({ send }) => send()));
    expect(answers.filter((res) => res.status !== 200).map((res) => [res.status, res.body])).toEqual([]);
    await followFeed(guard, feed, before);
    for (const code of codes) {
      const admitted = sent.filter((item, i) => item.code === code && (answers[i]!.body as { valid?: boolean }).valid === true).length;
      expect(feed.get(code.code_id), code.code).toMatchObject({ status: 'revoked', use_count: admitted });
    }
  });

  it('every kind of change to a code reaches a kiosk reading on from its cursor', async () => {
    const kiosk = await org.keyWith([...GATE_SCOPES]);
    const expectNext = async (codeId: string, state: Record<string, unknown>) => {
      const changes = new Map<string, FeedCode>();
      const next = await followFeed(kiosk, changes, cursor);
      expect([...changes.keys()], 'the feed after the cursor').toEqual([codeId]);
      expect(changes.get(codeId)).toMatchObject(state);
      expect(next).toBeGreaterThan(cursor);
      cursor = next;
    };
    const [single, revoked, batched, untouched, expiring] = await newCodes(5, 1);
    let cursor = await followFeed(kiosk, new Map(), 0);

    await kiosk.post('/access-codes/validate', { code: single!.code });
    await expectNext(single!.code_id, { status: 'used', use_count: 1 });

    await org.live.delete(`/access-codes/${revoked!.code_id}`);
    await expectNext(revoked!.code_id, { status: 'revoked' });

    // A batch: the validation kept is numbered; the refused one (a checkout of nobody) changes nothing.
    const batch = await kiosk.post('/kiosk/replay', {
      ops: [
        { operation: 'validate', idempotency_key: 'gate-9.scan.1', body: { code: batched!.code } },
        { operation: 'checkout', idempotency_key: 'gate-9.out.1', log_of: 'gate-9.nobody' },
      ],
    });
    expect(batch.body.results.map((item: { status: number }) => item.status)).toEqual([200, 424]);
    await expectNext(batched!.code_id, { status: 'used', use_count: 1 });

    // The expiry sweep, then the retention sweep erasing the visitor of final codes.
    const start = server.clock.now().toISOString();
    try {
      server.clock.advance(25 * 60 * 60 * 1000);
      await server.running.runSweeps();
      const expired = new Map<string, FeedCode>();
      cursor = await followFeed(kiosk, expired, cursor);
      expect(expired.get(expiring!.code_id)).toMatchObject({ status: 'expired' });
      expect(expired.get(untouched!.code_id)).toMatchObject({ status: 'expired' });

      expect((await org.live.patch('/visitor-policies', { retention_days: 1 })).status).toBe(200);
      server.clock.advance(2 * 24 * 60 * 60 * 1000);
      await server.running.runSweeps();
      const erased = new Map<string, FeedCode & { visitor_name: string | null }>();
      await followFeed(kiosk, erased, cursor);
      for (const code of [single, revoked, batched, untouched, expiring]) {
        expect(erased.get(code!.code_id), code!.code).toMatchObject({ visitor_name: null });
      }
    } finally {
      server.clock.set(start);
    }
  });
});
