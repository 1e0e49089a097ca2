import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
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
    expect(policy).toContain("connect-src 'self';");
    expect(policy).toContain("script-src 'self';");
  });

  it('refuses a tile URL that is not https, has no {z}/{x}/{y}, or names subdomains by a pattern, naming the setting', () => {
    for (const bad of ['http://tiles.example.ng/{z}/{x}/{y}.png', 'https://tiles.example.ng/map.png', 'https://{s}.tile.example.org/{z}/{x}/{y}.png']) {
      expect(() => loadConfig({ CONSOLE_TILE_URL: bad })).toThrow(ConfigError);
      expect(() => loadConfig({ CONSOLE_TILE_URL: bad })).toThrow(/CONSOLE_TILE_URL/);
    }
    expect(loadConfig({ CONSOLE_TILE_URL: 'https://tile.openstreetmap.org/{z}/{x}/{y}.png' }).CONSOLE_TILE_URL).toBe('https://tile.openstreetmap.org/{z}/{x}/{y}.png');
  });
});
