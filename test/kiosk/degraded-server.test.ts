import { describe, expect, it } from 'vitest';
import { createServerApi } from '../../electron/core/link/server-api.ts';
import { freePort } from '../support/ports.ts';
import { startTestServer } from '../support/server.ts';

describe("the kiosk's health check against a degraded server", () => {
  it('a server whose Redis is down (200 degraded) is online: it serves every request', async () => {
    const server = await startTestServer({ config: { REDIS_URL: `redis://127.0.0.1:${await freePort()}` } });
    try {
      const api = createServerApi({ serverUrl: server.baseUrl, apiKey: 'unused', fetch, timeoutMs: 2000 });
      const health = await api.health();
      expect(health).toEqual({ ok: true, serverTime: server.clock.now().toISOString() });
    } finally {
      await server.stop();
    }
  });

  it('a server whose database does not answer (503) is offline', async () => {
    const server = await startTestServer();
    try {
      await server.running.database.close();
      const api = createServerApi({ serverUrl: server.baseUrl, apiKey: 'unused', fetch, timeoutMs: 2000 });
      expect((await api.health()).ok).toBe(false);
    } finally {
      await server.stop();
    }
  });
});
