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
});
