import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { PNG } from 'pngjs';
import request from 'supertest';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../server/config.ts';
import { consoleAppRoutes } from '../../server/console/app-files.ts';

const dir = mkdtempSync(join(tmpdir(), 'tsaro-console-'));
writeFileSync(join(dir, 'index.html'), '<!doctype html><div id="root"></div>');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const appWith = (map = {}) => express().use('/console', consoleAppRoutes(dir, map));

describe("the console's map tiles (CONSOLE_TILE_URL)", () => {
  it('by default: the shipped borders only, and a policy that lets no image in from elsewhere', async () => {
    const answer = await request(appWith()).get('/console/config.json');
    expect(answer.body).toEqual({ map: { tile_url: null, tile_attribution: null } });
    expect(answer.headers['content-security-policy']).toContain("img-src 'self' data:;");
  });

  it("with a tile server: its URL and attribution for the maps, and its origin, only, in the policy's img-src", async () => {
    const map = { tileUrl: 'https://tiles.example.ng/osm/{z}/{x}/{y}.png', tileAttribution: '© OpenStreetMap contributors' };
    const answer = await request(appWith(map)).get('/console/config.json');
    expect(answer.body).toEqual({ map: { tile_url: map.tileUrl, tile_attribution: map.tileAttribution } });
    const policy = answer.headers['content-security-policy'] as string;
    expect(policy).toContain("img-src 'self' data: https://tiles.example.ng;");
    const own = await request(appWith({ tileUrl: 'https://10.20.0.5:8443/tiles/{z}/{x}/{y}.png' })).get('/console/config.json');
    expect(own.headers['content-security-policy']).toContain("img-src 'self' data: https://10.20.0.5:8443;");
    expect(policy).toContain("connect-src 'self';");
    expect(policy).toContain("script-src 'self';");
  });

  it('refuses a tile URL that is not https, has no {z}/{x}/{y}, or names subdomains by a pattern, naming the setting', () => {
    for (const bad of ['http://tiles.example.ng/{z}/{x}/{y}.png', 'https://tiles.example.ng/map.png', 'https://{s}.tile.example.org/{z}/{x}/{y}.png']) {
      expect(() => loadConfig({ CONSOLE_TILE_URL: bad })).toThrow(ConfigError);
      expect(() => loadConfig({ CONSOLE_TILE_URL: bad })).toThrow(/CONSOLE_TILE_URL/);
    }
    expect(loadConfig({ CONSOLE_TILE_URL: 'https://tile.openstreetmap.org/{z}/{x}/{y}.png' }).CONSOLE_TILE_URL).toBe('https://tile.openstreetmap.org/{z}/{x}/{y}.png');
    // The operator's own tile server on the estate's network, by its address and port (issue #48).
    expect(loadConfig({ CONSOLE_TILE_URL: 'https://10.20.0.5:8443/tiles/{z}/{x}/{y}.png' }).CONSOLE_TILE_URL).toBe('https://10.20.0.5:8443/tiles/{z}/{x}/{y}.png');
  });

  it("with a folder of the operator's own tiles (CONSOLE_TILE_DIR): served at /console/tiles/, the maps pointed there, the policy unchanged (issue #48)", async () => {
    const tiles = mkdtempSync(join(tmpdir(), 'tsaro-tiles-'));
    mkdirSync(join(tiles, '6', '32'), { recursive: true });
    const png = PNG.sync.write(Object.assign(new PNG({ width: 256, height: 256 }), { data: Buffer.alloc(256 * 256 * 4, 0xff) }));
    writeFileSync(join(tiles, '6', '32', '30.png'), png);
    const app = appWith({ tileDir: tiles, tileAttribution: 'Streets: Estate survey 2026' });
    const config = await request(app).get('/console/config.json');
    expect(config.body).toEqual({ map: { tile_url: '/console/tiles/{z}/{x}/{y}.png', tile_attribution: 'Streets: Estate survey 2026' } });
    expect(config.headers['content-security-policy']).toContain("img-src 'self' data:;");
    const tile = await request(app).get('/console/tiles/6/32/30.png');
    expect(tile.status).toBe(200);
    expect(tile.headers['content-type']).toBe('image/png');
    expect(Buffer.compare(tile.body as Buffer, png)).toBe(0);
    expect((await request(app).get('/console/tiles/6/32/31.png')).status).toBe(404);
    for (const outside of ['/console/tiles/6/32/..%2F..%2F..%2Fetc%2Fpasswd.png', '/console/tiles/6/../../index.html.png', '/console/tiles/a/b/c.png']) {
      const answer = await request(app).get(outside);
      expect(answer.headers['content-type'] ?? '').not.toBe('image/png');
    }
    rmSync(tiles, { recursive: true, force: true });
  });

  it('refuses a tile folder that is not a folder, or both a URL and a folder, naming the setting', () => {
    expect(() => loadConfig({ CONSOLE_TILE_DIR: join(dir, 'no-such-folder') })).toThrow(/CONSOLE_TILE_DIR: .* is not a folder/);
    expect(() => loadConfig({ CONSOLE_TILE_DIR: dir, CONSOLE_TILE_URL: 'https://tile.openstreetmap.org/{z}/{x}/{y}.png' })).toThrow(/CONSOLE_TILE_DIR: set CONSOLE_TILE_URL or CONSOLE_TILE_DIR, not both/);
    expect(loadConfig({ CONSOLE_TILE_DIR: dir }).CONSOLE_TILE_DIR).toBe(dir);
  });
});
