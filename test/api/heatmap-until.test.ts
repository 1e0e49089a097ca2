import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { threatWindow } from '../../console/src/threat/window.ts';
import { importThreatFile } from '../../server/threat/import.ts';
import { startTestServer, type ApiClient, type TestServer, expectErrorBody } from '../support/server.ts';

// GET /danger-zones/heatmap?until=: the window may end in the past, so the console's map can show
// the data's own last year (the shipped data ends months before today).
describe('the heatmap up to a chosen instant', () => {
  let server: TestServer;
  let api: ApiClient;
  beforeAll(async () => {
    server = await startTestServer(); // the clock: 2026-11-22T10:00:00Z
    api = (await server.createOrganization()).live;
    const file = join(mkdtempSync(join(tmpdir(), 'tsaro-heat-')), 'ibadan.csv');
    writeFileSync(
      file,
      [
        'id,date,latitude,longitude,type,confidence,fatalities,place',
        'u1,2026-11-01,7.3775,3.947,crime,0.5,0,Ibadan',
        'u2,2026-01-10,7.3775,3.947,kidnapping,1,0,Ibadan',
        'u3,2025-06-01,7.3775,3.947,kidnapping,1,0,Ibadan',
        'u4,2024-01-01,7.3775,3.947,crime,1,0,Ibadan',
        // The data runs through today, as a resolved SOS makes it (issue #48).
        'u5,2026-11-22,7.3775,3.947,robbery,1,0,Ibadan',
      ].join('\n'),
    );
    await importThreatFile(server.running.database.db, server.clock, 'community', file);
    await server.running.refreshThreatIndex();
  });
  afterAll(() => server.stop());

  const heat = (params: string) => api.get(`/danger-zones/heatmap?bounds=7,3.5,8,4.5&${params}`);

  it('counts `days` back from `until`, its own day included, and leaves out what came after it', async () => {
    const lastYear = await heat('until=2026-02-28T23:59:59Z&days=365');
    expect(lastYear.status).toBe(200);
    expect(lastYear.body).toMatchObject({ count: 1, incident_count: 2, heatmap: [{ lat: 7.3775, lng: 3.947, weight: 1, type: 'kidnapping' }] });
    expect((await heat('until=2026-01-10T08:00:00Z&days=1')).body.incident_count).toBe(1);
    expect((await heat('until=2026-01-09T23:59:59Z&days=1')).body.incident_count).toBe(0);
    expect((await heat('until=2026-02-28T23:59:59Z&days=30')).body).toMatchObject({ count: 0, incident_count: 0, heatmap: [] });
  });

  it('ends now by default, as before', async () => {
    expect((await heat('')).body).toMatchObject({ incident_count: 2 });
    expect((await heat('days=365')).body.incident_count).toBe(3);
    expect((await heat(`until=${server.clock.now().toISOString()}&days=365`)).body.incident_count).toBe(3);
  });

  it("the console's default window, on data that runs through today, is a request both the heatmap and the zones accept (issue #48)", async () => {
    const coverage = (await api.get('/threat/coverage')).body;
    const through = (coverage.countries as { country: string; through: string }[]).find((country) => country.country === 'NG')!.through;
    expect(through).toBe('2026-11-22');
    const span = threatWindow(through, 90, server.clock.now());
    const map = await heat(`days=90${span.until ? `&until=${span.until}` : ''}`);
    expect(map.status).toBe(200);
    expect(map.body.incident_count).toBe(2);
    const zones = await api.get(`/danger-zones?latitude=7.3775&longitude=3.947&radius_km=50&from_date=${span.fromDate}&to_date=${span.toDate}&limit=100`);
    expect(zones.status).toBe(200);
  });

  it('refuses an `until` more than a minute ahead, or not an instant, naming it', async () => {
    expect((await heat('until=2026-11-22T10:00:50Z')).status).toBe(200);
    const ahead = await heat('until=2026-11-22T10:01:30Z');
    expect(ahead.status).toBe(400);
    expectErrorBody(ahead.body, 400, 'until: must not be in the future (at most a minute ahead)');
    const garbled = await heat('until=last-year');
    expect(garbled.status).toBe(400);
    expect(garbled.body.message).toMatch(/^until/);
  });
});
