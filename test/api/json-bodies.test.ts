import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { incidentBody, startTestServer, type TestOrganization, type TestServer, expectErrorBody } from '../support/server.ts';

// A body that is not JSON was read as {}: cancel, revoke and checkout then acted without their
// fields. Now it is refused before any route sees it, and a request without a body still works.
describe('a request body must be JSON', () => {
  let server: TestServer;
  let org: TestOrganization;

  beforeAll(async () => {
    server = await startTestServer();
    org = await server.createOrganization();
  });
  afterAll(() => server?.stop());

  /**
   * Over node:http, which (unlike fetch) sends no Content-Type unless told, on a connection of
   * its own. `chunked`: the body goes as chunks, with no Content-Length.
   */
  const send = (method: string, path: string, body: string, headers: Record<string, string>, chunked = false) =>
    new Promise<{ status: number; body: any }>((resolve, reject) => {
      const length = chunked ? {} : { 'content-length': String(Buffer.byteLength(body)) };
      const req = request(`${server.baseUrl}${path}`, { method, agent: false, headers: { authorization: `Bearer ${org.keys.live}`, ...length, ...headers } }, (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      });
      req.on('error', reject);
      if (chunked) req.write(body);
      req.end(chunked ? undefined : body);
    });

  const newIncident = async () => (await org.live.post('/incidents', incidentBody())).body.incident.incident_id as string;
  const newCode = async () => (await org.live.post('/access-codes', { visitor_name: 'Musa Bello', visitor_phone: '+2348030000001' })).body.access_code.code_id as string;
  const newVisit = async () => (await org.live.post('/access-logs', { visitor_name: 'Ngozi Eze', visitor_phone: '+2348030000002' })).body.access_log.log_id as string;

  const cases = [
    { what: 'cancel', make: newIncident, method: 'POST', path: (id: string) => `/incidents/${id}/cancel`, body: { reason: 'False alarm' }, read: (id: string) => `/incidents/${id}`, state: (b: any) => b.incident.status },
    { what: 'revoke', make: newCode, method: 'DELETE', path: (id: string) => `/access-codes/${id}`, body: { reason: 'Visit called off' }, read: (id: string) => `/access-codes/${id}`, state: (b: any) => b.access_code.status },
    { what: 'checkout', make: newVisit, method: 'PATCH', path: (id: string) => `/access-logs/${id}/checkout`, body: { checkout_notes: 'Left by gate B' }, read: (id: string) => `/access-logs/${id}`, state: (b: any) => b.access_log.status },
  ];

  for (const c of cases) {
    it(`${c.what} with a JSON body sent as text/plain, or with no Content-Type, is a 400 naming Content-Type and changes nothing`, async () => {
      const id = await c.make();
      const before = c.state((await org.live.get(c.read(id))).body);
      const contentTypes: Record<string, string>[] = [{ 'content-type': 'text/plain' }, { 'content-type': 'application/x-www-form-urlencoded' }, {}];
      for (const headers of contentTypes) {
        const res = await send(c.method, c.path(id), JSON.stringify(c.body), headers);
        expect(res.status, JSON.stringify(headers)).toBe(400);
        expectErrorBody(res.body, 400, expect.stringContaining('Content-Type'));
      }
      expect(c.state((await org.live.get(c.read(id))).body)).toBe(before);
    });

    it(`${c.what} without any body is still accepted`, async () => {
      const id = await c.make();
      const before = c.state((await org.live.get(c.read(id))).body);
      const res = await send(c.method, c.path(id), '', {});
      expect(res.status).toBe(200);
      expect(c.state((await org.live.get(c.read(id))).body)).not.toBe(before);
    });
  }

  it('a chunked body without a JSON Content-Type is refused too', async () => {
    const id = await newIncident();
    const res = await send('POST', `/incidents/${id}/cancel`, JSON.stringify({ reason: 'False alarm' }), {}, true);
    expect(res).toEqual({ status: 400, body: { code: 400, message: expect.stringContaining('Content-Type') } });
  });

  it('a +json media type is read as JSON, its fields applied', async () => {
    const id = await newIncident();
    const res = await org.live.request('POST', `/incidents/${id}/cancel`, {
      rawBody: JSON.stringify({ reason: 'False alarm' }),
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(res.status).toBe(200);
    expect(res.body.incident.timeline.at(-1).message).toBe('Cancelled by partner: False alarm');
  });
});
