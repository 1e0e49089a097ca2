import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { incidentBody, startTestServer, type TestOrganization, type TestServer } from '../support/server.ts';

function get(url: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    request(url, { headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    })
      .on('error', reject)
      .end();
  });
}

// Partners' caches revalidate an incident with its ETag (server/http/json-answer.ts writes it).
describe('an incident read with its ETag', () => {
  let server: TestServer;
  let ada: TestOrganization;
  let url: string;
  beforeAll(async () => {
    server = await startTestServer();
    ada = await server.createOrganization({ name: 'Ada Estates' });
    const id = (await ada.live.post('/incidents', incidentBody({ description: 'Gate 3: ọ̀gá à ń bọ̀' }))).body.incident.incident_id;
    url = `${server.baseUrl}/incidents/${id}`;
  });
  afterAll(() => server.stop());

  it('answers 304 with the ETag and the rate headers while it has not changed, and 200 with the body after a change', async () => {
    const authorization = `Bearer ${ada.keys.live}`;
    const first = await get(url, { authorization });
    expect(first.status).toBe(200);
    expect(first.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(first.headers['content-length']).toBe(String(Buffer.byteLength(first.body)));
    expect(first.headers.etag).toMatch(/^W\/"[0-9a-f]+-[\w+/]{27}"$/);
    expect(first.headers['x-request-id']).toBeTruthy();

    const unchanged = await get(url, { authorization, 'if-none-match': String(first.headers.etag) });
    expect(unchanged).toMatchObject({ status: 304, body: '' });
    expect(unchanged.headers).toMatchObject({ etag: first.headers.etag, 'x-ratelimit-limit': first.headers['x-ratelimit-limit'] });
    expect(unchanged.headers['content-type']).toBeUndefined();

    await ada.live.post(`${url.slice(server.baseUrl.length)}/notes`, { message: 'Guard on the way' });
    const changed = await get(url, { authorization, 'if-none-match': String(first.headers.etag) });
    expect(changed.status).toBe(200);
    expect(changed.headers.etag).not.toBe(first.headers.etag);
    expect(JSON.parse(changed.body).incident.timeline.at(-1)).toMatchObject({ message: 'Guard on the way' });
  });
});
