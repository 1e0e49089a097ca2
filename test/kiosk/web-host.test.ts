import { mkdirSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { answerBridgeCall } from '../../electron/core/answer-call.ts';
import { bridgeTransport, createKioskClient, httpTransport } from '../../shared/kiosk/client.ts';
import { startWebHost, type WebHost } from '../../electron/web-host/server.ts';
import { createCode, startGate, type Gate } from './support/gate.ts';

let gate: Gate;
let host: WebHost;
let rendererDir: string;
beforeEach(async () => {
  gate = await startGate();
  const { core } = gate.kiosk();
  rendererDir = join(gate.dataDir(), 'dist');
  host = await startWebHost({ core, port: 0, rendererDir, logError: () => undefined });
});
afterEach(async () => {
  await host.close();
  await gate.stop();
});

function rawPost(path: string, headers: Record<string, string>, body: string): Promise<{ status: number; body: any }> {
  return new Promise((done, fail) => {
    const req = request({ host: '127.0.0.1', port: host.port, path, method: 'POST', headers }, (res) => {
      let text = '';
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => done({ status: res.statusCode!, body: JSON.parse(text) }));
    });
    req.on('error', fail);
    req.end(body);
  });
}

describe('the browser host', () => {
  it('carries the handler map over loopback HTTP to the typed client', async () => {
    expect(host.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const code = await createCode(gate.owner, { visitor_name: 'Musa Bello' });
    const client = createKioskClient(httpTransport(host.url.slice(0, -1)));
    const decision = await client.call('scan', { text: code.code, method: 'keypad' });
    expect(decision).toMatchObject({ admitted: true, decidedBy: 'server', visitor: { name: 'Musa Bello' } });
    await expect(client.call('scan', { text: '', method: 'keypad' })).rejects.toMatchObject({ code: 400, message: expect.stringMatching(/^text/) });
    await expect(client.call('checkout', { visitId: 'vis_nobody' })).rejects.toMatchObject({ code: 404 });
    const unknown = await rawPost('/api/calls/deleteEverything', { host: `127.0.0.1:${host.port}`, 'content-type': 'application/json' }, '{}');
    expect(unknown).toEqual({ status: 404, body: { code: 404, message: 'Unknown kiosk call deleteEverything' } });
    const malformed = await rawPost('/api/calls/kioskStatus', { host: `127.0.0.1:${host.port}`, 'content-type': 'application/json' }, '{');
    expect(malformed.status).toBe(400);
    expect(Object.keys(malformed.body).sort()).toEqual(['code', 'message']);
  });

  it('refuses calls another web page could make: foreign Host (DNS rebinding), foreign Origin, or a form body', async () => {
    const own = `127.0.0.1:${host.port}`;
    expect((await rawPost('/api/calls/panicPress', { host: `evil.example:${host.port}`, 'content-type': 'application/json' }, '{"pressId":"press-0001"}')).status).toBe(421);
    expect((await rawPost('/api/calls/panicPress', { host: own, origin: 'https://evil.example', 'content-type': 'application/json' }, '{"pressId":"press-0001"}')).status).toBe(403);
    expect((await rawPost('/api/calls/panicPress', { host: own, 'content-type': 'text/plain' }, '{"pressId":"press-0001"}')).status).toBe(415);
    expect((await gate.owner.get('/incidents')).body.totalResults).toBe(0);
    expect((await rawPost('/api/calls/kioskStatus', { host: own, origin: `http://${own}`, 'content-type': 'application/json' }, '{}')).status).toBe(200);
  });

  it('serves the built renderer, and a placeholder until it is built', async () => {
    const placeholder = await fetch(host.url);
    expect(placeholder.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(await placeholder.text()).toContain('not built yet');
    mkdirSync(rendererDir, { recursive: true });
    writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>Gate screens</title>');
    expect(await (await fetch(host.url)).text()).toContain('Gate screens');
    expect(await (await fetch(`${host.url}visitors`)).text()).toContain('Gate screens');
  });
});

describe('the Electron bridge', () => {
  it('carries the same calls, with errors as data, to the same typed client', async () => {
    const { core } = gate.kiosk();
    const logged: unknown[] = [];
    // What electron/main.ts's IPC handler answers, behind what preload.ts exposes.
    const bridge = { call: (name: string, input: unknown) => answerBridgeCall(core, name, input, (error) => logged.push(error)) };
    const client = createKioskClient(bridgeTransport(bridge));
    const code = await createCode(gate.owner, { visitor_name: 'Ada Obi' });
    expect(await client.call('scan', { text: code.qr_payload, method: 'camera' })).toMatchObject({ admitted: true, visitor: { name: 'Ada Obi' } });
    await expect(client.call('walkIn', { visitorName: '', visitorPhone: '+2348030000002' })).rejects.toMatchObject({ name: 'KioskCallError', code: 400 });
    expect(await bridge.call('nope', {})).toEqual({ error: { code: 404, message: 'Unknown kiosk call nope' } });
    expect(logged).toEqual([]);
  });
});
