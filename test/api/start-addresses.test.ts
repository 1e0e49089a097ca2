import { afterAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.ts';

/** A newcomer's first start says in words where to go next, beside the JSON log lines. */
describe('every start prints where the console and the reference are', () => {
  let server: TestServer | undefined;
  afterAll(() => server?.stop());

  it('names the console, the reference and the API at the port it really listens on', async () => {
    const printed: string[] = [];
    server = await startTestServer({ print: (text) => printed.push(text) });
    const text = printed.join('');
    const origin = new URL(server.baseUrl).origin;
    expect(origin).not.toMatch(/:0$/);
    expect(text).toContain(`Console:   ${origin}/console/`);
    expect(text).toContain(`Reference: ${server.baseUrl}/docs`);
    expect(text).toContain(`API:       ${server.baseUrl}`);
    // Each address is served (the console's files are built by `npm start`, so here either the app or the 503 saying so).
    expect([200, 503]).toContain((await fetch(`${origin}/console/`)).status);
    expect((await fetch(`${server.baseUrl}/docs`)).status).toBe(200);
    // Plain words, not a log line a person must read JSON to find.
    for (const line of text.split('\n')) expect(line.trimStart().startsWith('{')).toBe(false);
  });

  it('says which outside parts are off on a plain start: texts and Redis, in words', async () => {
    const printed: string[] = [];
    const plain = await startTestServer({ print: (text) => printed.push(text) });
    try {
      const text = printed.join('');
      expect(text).toContain('  Outside parts:');
      expect(text).toMatch(/ {4}Database: {2}(SQLite, the file |PostgreSQL at postgres:\/\/)/);
      expect(text).toContain('    Redis:     off (REDIS_URL is not set): rate limits are kept in this process');
      expect(text).toContain('    Texts:     off (SMS_GATEWAY is not set): nobody is texted when an alarm is raised');
    } finally {
      await plain.stop();
    }
  });

  it('with texts through Kannel and Redis set, says each is on and where, never a password (issue #48)', async () => {
    const printed: string[] = [];
    const redis = new URL(process.env.TSARO_TEST_REDIS_URL || 'redis://127.0.0.1:6379');
    const withParts = await startTestServer({
      print: (text) => printed.push(text),
      config: {
        SMS_GATEWAY: 'kannel',
        KANNEL_SENDSMS_URL: 'http://127.0.0.1:13013/cgi-bin/sendsms?password=query-secret',
        KANNEL_USERNAME: 'tsaro',
        KANNEL_PASSWORD: 'kannel-secret',
        SMS_SENDER_ID: 'ESTATE',
        REDIS_URL: redis.toString(),
      },
    });
    try {
      const text = printed.join('');
      expect(text).toContain('    Texts:     on, through Kannel at http://127.0.0.1:13013/cgi-bin/sendsms as user tsaro, from ESTATE');
      expect(text).toContain(`    Redis:     redis://${redis.host}`);
      expect(text).toContain('rate limits shared by every host');
      for (const secret of ['kannel-secret', 'query-secret', 'password=']) expect(text).not.toContain(secret);
    } finally {
      await withParts.stop();
    }
  });
});
