import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importThreatFile } from '../../server/threat/import.ts';
import { startTestServer, type ApiClient, type TestServer, expectErrorBody } from '../support/server.ts';

/** Central Maiduguri, Borno state. */
const MAIDUGURI = { latitude: 11.8311, longitude: 13.151 };
/** Wuse, Abuja: nothing recorded within 50 km in the shipped data. */
const ABUJA = { latitude: 9.0765, longitude: 7.3986 };
const query = (params: Record<string, string | number>) => `?${new URLSearchParams(Object.fromEntries(Object.entries(params).map(([k, v]) => [k, String(v)])))}`;

describe('threat intelligence on the shipped UCDP data', () => {
  let server: TestServer;
  let api: ApiClient;
  beforeAll(async () => {
    server = await startTestServer({ config: { THREAT_SEED: '1' } });
    api = (await server.createOrganization()).live;
  }, 60_000);
  afterAll(() => server.stop());

  it('scores central Maiduguri critical and red', async () => {
    const response = await api.get(`/safety/score${query(MAIDUGURI)}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      location: MAIDUGURI,
      radius_km: 2,
      score: expect.any(Number),
      level: 'critical',
      color: 'red',
      breakdown: { recent_incidents_7d: 0, recent_incidents_30d: 0, total_incidents: expect.any(Number), trend: 'stable' },
      timestamp: '2026-11-22T10:00:00.000Z',
      data: { through: '2026-02-28', sources: ['ucdp-ged', 'ucdp-candidate'], country: 'NG' },
    });
    expect(response.body.score).toBeLessThan(30);
    expect(response.body.breakdown.total_incidents).toBeGreaterThan(300);
  });

  it.each([
    ['Konduga', 11.6558, 13.4213],
    ['Bama', 11.5221, 13.6856],
    ['Dikwa', 12.0361, 13.9182],
    ['Mafa', 11.9242, 13.6003],
  ])('scores %s, in central Borno, critical too', async (_name, latitude, longitude) => {
    expect((await api.get(`/safety/score${query({ latitude, longitude })}`)).body.level).toBe('critical');
  });

  it('scores a place with no recorded violence within its radius safe', async () => {
    const response = await api.get(`/safety/score${query(ABUJA)}`);
    expect(response.body).toMatchObject({ level: 'safe', color: 'green', breakdown: { total_incidents: 0 } });
    expect(response.body.score).toBeGreaterThanOrEqual(70);
    const analytics = await api.get(`/danger-zones/analytics${query(ABUJA)}`);
    expect(analytics.body.analytics).toMatchObject({ danger_level: 'safe', total_incidents: 0, top_incident_types: [], last_incident_at: null });
  });

  // The calibration table in docs/threat-model.md ("How the scores are made"): change both together.
  it.each([
    ['Maiduguri', 11.8311, 13.151, 3],
    ['Konduga', 11.65, 13.42, 4],
    ['Bama', 11.52, 13.69, 2],
    ['Mafa', 11.92, 13.6, 5],
    ['Dikwa', 12.03, 13.92, 9],
    ['Damboa', 11.155, 12.756, 13],
    ['Monguno', 12.67, 13.61, 9],
    ['Lagos Island', 6.45, 3.39, 56],
    ['Jos', 9.9, 8.86, 59],
    ['Makurdi', 7.73, 8.54, 55],
    ['Abuja', 9.06, 7.49, 98],
    ['Kano', 12.0, 8.52, 97],
    ['Port Harcourt', 4.82, 7.03, 86],
    ['3 km outside Gwoza', 11.08, 13.69, 7],
  ])('scores %s (%f, %f) %i, as docs/threat-model.md says', async (_name, latitude, longitude, score) => {
    expect((await api.get(`/safety/score${query({ latitude, longitude })}`)).body.score).toBe(score);
  });

  it('lists Maiduguri among the most severe danger zones', async () => {
    const response = await api.get('/danger-zones?severity_min=9&limit=100');
    expect(response.status).toBe(200);
    const maiduguri = response.body.results.find((zone: any) => zone.name.startsWith('Maiduguri'));
    expect(maiduguri).toMatchObject({ level: 'critical', incident_types: expect.arrayContaining(['armed_conflict']) });
    expect(maiduguri.zone_id).toMatch(/^zone_/);
    for (const zone of response.body.results) expect(zone.severity).toBeGreaterThanOrEqual(9);
  });

  it('says how current its data is: through February 2026 in Nigeria, quiet or not; years old where the data stops; null where there is none', async () => {
    // Maiduguri: 2026 Candidate events within the radius.
    const maiduguri = await api.get(`/danger-zones/analytics${query(MAIDUGURI)}`);
    expect(maiduguri.body.analytics.last_incident_at).toMatch(/^2026-0[12]-/);
    expect(maiduguri.body.data).toEqual({ through: '2026-02-28', sources: ['ucdp-ged', 'ucdp-candidate'], country: 'NG' });
    // Abuja: nothing within the radius, but the data covering Nigeria runs to 2026-02-28: quiet, not unknown.
    const abuja = await api.get(`/safety/score${query(ABUJA)}`);
    expect(abuja.body).toMatchObject({ score: 98, level: 'safe', breakdown: { total_incidents: 0 }, data: { through: '2026-02-28', country: 'NG' } });
    // Abidjan: the shipped data for Ivory Coast stops in April 2011 (GED sample, no 2026 Candidate events).
    const abidjan = await api.get(`/safety/score${query({ latitude: 5.32, longitude: -4.02 })}`);
    expect(abidjan.body).toMatchObject({ score: 100, data: { through: '2011-04-27', sources: ['ucdp-ged'], country: 'CI' } });
    // Gaborone: covered, but no event in Botswana at all.
    const gaborone = await api.get(`/safety/score${query({ latitude: -24.65, longitude: 25.91 })}`);
    expect(gaborone.body).toMatchObject({ score: 100, data: { through: null, sources: [], country: 'BW' } });
    // A route is as current as its least current checkpoint.
    const route = await api.get(`/safety/route${query({ from_lat: ABUJA.latitude, from_lng: ABUJA.longitude, to_lat: MAIDUGURI.latitude, to_lng: MAIDUGURI.longitude })}`);
    expect(route.body.data).toEqual({ through: '2026-02-28', sources: ['ucdp-ged', 'ucdp-candidate'], country: null });
    const heat = await api.get(`/danger-zones/heatmap${query({ bounds: '4,2.6,14,14.7', days: 365 })}`);
    // The last year of Nigeria is no longer empty: the 2026 Candidate events.
    expect(heat.body).toMatchObject({ data: { through: '2026-02-28', sources: ['ucdp-ged', 'ucdp-candidate'], country: null } });
    expect(heat.body.count).toBeGreaterThan(0);
    expect((await api.get('/danger-zones?limit=1')).body.data).toEqual({ through: '2026-02-28', sources: ['ucdp-ged', 'ucdp-candidate'], country: null });
  });

  it('lists per country the period each source covers, its events per year and its gaps (Nigeria: 2025)', async () => {
    const response = await api.get('/threat/coverage');
    expect(response.status).toBe(200);
    const nigeria = response.body.countries.find((c: any) => c.country === 'NG');
    expect(nigeria.through).toBe('2026-02-28');
    expect(nigeria.gaps).toContainEqual({ from: '2025-01-01', to: '2025-12-31' });
    const ged = nigeria.sources.find((s: any) => s.source === 'ucdp-ged');
    expect(ged).toMatchObject({ from: '1990-09-25', through: expect.stringMatching(/^2024-12-/) });
    // Counted by each event's point: 11 events UCDP files under Nigeria lie just over the border (Kirawa, Ashigashiya, Sigir), in Cameroon.
    expect(ged.events_by_year).toMatchObject({ '2022': 281, '2023': 423, '2024': 296 });
    expect(ged.events_by_year['2025']).toBeUndefined();
    expect(nigeria.sources.find((s: any) => s.source === 'ucdp-candidate')).toMatchObject({
      from: '2026-01-01',
      through: '2026-02-28',
      // 302 rows UCDP files under Nigeria; by point one more falls inside its border than out.
      events: 303,
      events_by_year: { '2026': 303 },
      gaps: [],
    });
    expect(nigeria.notes.join(' ')).toMatch(/partial elsewhere/);
    expect(response.body.countries.find((c: any) => c.country === 'CI')).toMatchObject({ through: '2011-04-27' });
    expect(response.body.citations.join(' ')).toContain('Introducing the UCDP Candidate Events Dataset');
  });

  it('advises another route from Abuja to Maiduguri', async () => {
    const response = await api.get(`/safety/route${query({ from_lat: ABUJA.latitude, from_lng: ABUJA.longitude, to_lat: MAIDUGURI.latitude, to_lng: MAIDUGURI.longitude })}`);
    expect(response.status).toBe(200);
    expect(response.body.checkpoints).toHaveLength(10);
    expect(response.body.checkpoints[0].location).toEqual({ lat: ABUJA.latitude, lng: ABUJA.longitude });
    expect(response.body.checkpoints[9]).toMatchObject({ checkpoint: 10, location: { lat: MAIDUGURI.latitude, lng: MAIDUGURI.longitude }, level: 'critical' });
    expect(response.body.alternative_needed).toBe(true);
    expect(response.body.lowest_safety_score).toBeLessThan(30);
    expect(response.body.danger_zones.map((d: any) => d.checkpoint)).toContain(10);
    expect(response.body.danger_zones[0].warning).toMatch(/incident/);
    expect(response.body.recommendation).toMatch(/another route/);
  });
});

describe('threat intelligence endpoints', () => {
  let server: TestServer;
  let api: ApiClient;
  let dir: string;
  beforeAll(async () => {
    server = await startTestServer();
    api = (await server.createOrganization()).live;
    dir = mkdtempSync(join(tmpdir(), 'tsaro-threat-'));
  });
  afterAll(() => server.stop());

  /** Community reports at a point in Lagos, imported as an operator would, then loaded by the index. */
  async function importReports(name: string, rows: string[]) {
    const file = join(dir, name);
    writeFileSync(file, ['id,date,latitude,longitude,type,confidence,fatalities,place', ...rows].join('\n'));
    const result = await importThreatFile(server.running.database.db, server.clock, 'community', file);
    await server.running.refreshThreatIndex();
    return result;
  }

  it('scores hand-made events as the model says, and importing them again changes nothing', async () => {
    // Yaba, Lagos: four confident reports today, severity 2 (kidnapping, no deaths) and 5 (one with 10 deaths)
    const rows = ['y1', 'y2', 'y3'].map((id) => `${id},2026-11-22,6.5095,3.3711,kidnapping,1,0,Yaba`);
    rows.push('y4,2026-11-20,6.5095,3.3711,armed_robbery,1,10,Yaba');
    expect(await importReports('yaba.csv', rows)).toEqual({ imported: 4, replaced: 0, skipped: 0 });
    // mass = 0.5 (community) x 1 (confidence) x 0.8 (precision 2) x severity/10 = 0.08 three times and 0.2 (severity 5, two days old: x 0.99659)
    // local = 0.24 + 0.199318 = 0.439318; M = 0.5 x local + 0.15 x local = 0.285557; 100 e^-M = 75.2
    const score = await api.get(`/safety/score${query({ latitude: 6.5095, longitude: 3.3711 })}`);
    expect(score.body).toMatchObject({ score: 75, level: 'safe', color: 'green', breakdown: { recent_incidents_7d: 4, recent_incidents_30d: 4, total_incidents: 4 } });
    expect(await importReports('yaba.csv', rows)).toEqual({ imported: 0, replaced: 0, skipped: 4 });
    expect((await api.get(`/safety/score${query({ latitude: 6.5095, longitude: 3.3711 })}`)).body.score).toBe(75);
    const analytics = await api.get(`/danger-zones/analytics${query({ latitude: 6.5095, longitude: 3.3711 })}`);
    expect(analytics.body).toEqual({
      location: { latitude: 6.5095, longitude: 3.3711 },
      radius_km: 5,
      analytics: {
        danger_level: 'safe',
        safety_score: 75,
        total_incidents: 4,
        last_7days: 4,
        last_30days: 4,
        last_90days: 4,
        top_incident_types: ['kidnapping', 'armed_robbery'],
        trend: 'increasing',
        last_incident_at: '2026-11-22T00:00:00.000Z',
      },
      data: { through: '2026-11-22', sources: ['community'], country: 'NG' },
    });
  });

  it('weighs a UCDP Candidate event at half a GED event, a quarter when flagged for checking; a newer release replaces it in place', async () => {
    const ucdp = async (name: string, rows: string[]) => {
      const file = join(dir, name);
      writeFileSync(file, ['id,date,latitude,longitude,location_precision,violence_code,deaths_best,source_dataset,code_status', ...rows].join('\n'));
      const result = await importThreatFile(server.running.database.db, server.clock, 'ucdp', file);
      await server.running.refreshThreatIndex();
      return result;
    };
    const KADUNA = { latitude: 10.52, longitude: 7.44 };
    const SOKOTO = { latitude: 13.06, longitude: 5.24 };
    const GOMBE = { latitude: 10.29, longitude: 11.17 };
    // The same event three times, far apart: armed conflict, 10 deaths (severity 5), exact place, two days old.
    expect(
      await ucdp('weights.csv', [
        `9000001,2026-11-20,${KADUNA.latitude},${KADUNA.longitude},1,1,10,UCDP GED 25.1,`,
        `9000002,2026-11-20,${SOKOTO.latitude},${SOKOTO.longitude},1,1,10,UCDP Candidate Events 26.0.10 (provisional),Clear`,
        `9000003,2026-11-20,${GOMBE.latitude},${GOMBE.longitude},1,1,10,UCDP Candidate Events 26.0.10 (provisional),Check deaths`,
      ]),
    ).toEqual({ imported: 3, replaced: 0, skipped: 0 });
    const score = async (at: { latitude: number; longitude: number }) => (await api.get(`/safety/score${query(at)}`)).body;
    // M = 0.65 x 0.5 (severity) x weight x 0.99659 (age): GED 0.3239 → 72; Candidate 0.16195 → 85; flagged 0.08097 → 92
    expect((await score(KADUNA)).score).toBe(72);
    expect((await score(SOKOTO)).score).toBe(85);
    expect((await score(GOMBE)).score).toBe(92);
    // GED 26.1 now lists the Sokoto event: it replaces the Candidate row (no second copy) and weighs in full.
    expect(await ucdp('ged-26.1.csv', [`9000002,2026-11-20,${SOKOTO.latitude},${SOKOTO.longitude},1,1,10,UCDP GED 26.1,`])).toEqual({ imported: 0, replaced: 1, skipped: 0 });
    expect(await score(SOKOTO)).toMatchObject({ score: 72, breakdown: { total_incidents: 1 } });
    // An older release of it changes nothing.
    expect(await ucdp('candidate-again.csv', [`9000002,2026-11-20,${SOKOTO.latitude},${SOKOTO.longitude},1,1,10,UCDP Candidate Events 26.0.10 (provisional),`])).toEqual({
      imported: 0,
      replaced: 0,
      skipped: 1,
    });
    expect((await score(SOKOTO)).score).toBe(72);
  });

  it('skips a report dated after tomorrow: a typo must not count in full for years', async () => {
    expect(await importReports('future.csv', ['fut1,2062-11-20,9.0765,7.3986,attack,1,1000,Wuse', 'fut2,2026-11-23,9.0765,7.3986,attack,1,0,Wuse'])).toEqual({ imported: 1, replaced: 0, skipped: 1 });
    const score = await api.get(`/safety/score${query(ABUJA)}`);
    expect(score.body.breakdown).toMatchObject({ total_incidents: 1 });
  });

  it('answers the heatmap of a box, aggregated, with the 90-day default', async () => {
    await importReports('heat.csv', ['h1,2026-11-01,7.3775,3.947,crime,0.5,0,Ibadan', 'h2,2026-05-01,7.3775,3.947,crime,0.5,0,Ibadan']);
    const response = await api.get(`/danger-zones/heatmap${query({ bounds: '7,3.5,8,4.5' })}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      count: 1,
      incident_count: 1,
      heatmap: [{ lat: 7.3775, lng: 3.947, weight: 1, type: 'crime' }],
      data: { through: '2026-11-01', sources: ['community'], country: null },
    });
    const year = await api.get(`/danger-zones/heatmap${query({ bounds: '8,4.5,7,3.5', days: 365 })}`);
    expect(year.body.incident_count).toBe(2);
  });

  it('lists danger zones, filtered and paged; a cluster that scores safe is no danger zone', async () => {
    // Ikorodu: eight confident reports with ten deaths each (severity 5): mass 0.2 each, M = 0.65 x 1.6 = 1.04, score 35
    // Yaba's four reports cluster but score 75 (safe): no danger zone yet.
    expect((await api.get('/danger-zones')).body).toMatchObject({ results: [], totalResults: 0 });
    const rows = Array.from({ length: 8 }, (_, i) => `ik${i},2026-11-${String(10 + i).padStart(2, '0')},6.6194,3.5105,armed_robbery,1,10,Ikorodu`);
    await importReports('ikorodu.csv', rows);
    const response = await api.get('/danger-zones');
    expect(response.status).toBe(200);
    // Ikorodu, and Yaba, 17 km away, which its 50 km area term now makes moderate; most severe first.
    expect(response.body).toMatchObject({ page: 1, limit: 20, totalResults: 2, totalPages: 1 });
    expect(response.body.results[1]).toMatchObject({ name: 'Yaba', level: 'moderate', incident_count: 4 });
    expect(response.body.results[0]).toEqual({
      zone_id: expect.stringMatching(/^zone_[0-9a-f]{16}$/),
      name: 'Ikorodu',
      center: { latitude: 6.6194, longitude: 3.5105 },
      radius_km: 1,
      severity: 7,
      level: 'high_risk',
      incident_count: 8,
      incident_types: ['armed_robbery'],
      last_incident_at: '2026-11-17T00:00:00.000Z',
    });
    const names = async (filter: string) => (await api.get(`/danger-zones?${filter}`)).body.results.map((zone: any) => zone.name);
    expect(await names('incident_type=kidnapping')).toEqual(['Yaba']);
    expect(await names('incident_type=armed_robbery')).toEqual(['Ikorodu', 'Yaba']);
    expect(await names('incident_type=armed_conflict')).toEqual([]);
    expect(await names('latitude=9&longitude=7&radius_km=50')).toEqual([]);
    expect(await names('latitude=6.6&longitude=3.5&radius_km=10')).toEqual(['Ikorodu']);
    expect(await names('from_date=2026-11-18T00:00:00Z')).toEqual(['Yaba']);
    expect(await names('to_date=2026-11-18T00:00:00Z')).toEqual(['Ikorodu']);
    expect(await names('severity_min=7')).toEqual(['Ikorodu']);
    expect(await names('severity_min=8')).toEqual([]);
    expect((await api.get('/danger-zones?page=2&limit=1')).body).toMatchObject({ results: [{ name: 'Yaba' }], page: 2, limit: 1, totalPages: 2, totalResults: 2 });
  });

  it('scores a route with the default 10 checkpoints, both ends included', async () => {
    const response = await api.get(`/safety/route${query({ from_lat: 6.5095, from_lng: 3.3711, to_lat: 7.3775, to_lng: 3.947 })}`);
    expect(response.status).toBe(200);
    expect(response.body.checkpoints.map((c: any) => c.checkpoint)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(response.body.checkpoints[0].location).toEqual({ lat: 6.5095, lng: 3.3711 });
    expect(response.body.checkpoints[9].location).toEqual({ lat: 7.3775, lng: 3.947 });
    expect(response.body.alternative_needed).toBe(false);
    const scores = response.body.checkpoints.map((c: any) => c.safety_score);
    expect(response.body.lowest_safety_score).toBe(Math.min(...scores));
    const twenty = await api.get(`/safety/route${query({ from_lat: 6.5, from_lng: 3.4, to_lat: 7.4, to_lng: 3.9, checkpoints: 20 })}`);
    expect(twenty.body.checkpoints).toHaveLength(20);
  });

  it.each([
    ['/safety/score?longitude=3.4', 'latitude is required'],
    ['/safety/score?latitude=abc&longitude=3.4', 'latitude: expected a decimal number'],
    ['/safety/score?latitude=&longitude=10', 'latitude: expected a decimal number'],
    ['/safety/score?latitude=0x5&longitude=0x8', 'latitude: expected a decimal number'],
    ['/safety/route?from_lat=6.5&from_lng=&to_lat=7.4&to_lng=3.9', 'from_lng: expected a decimal number'],
    ['/danger-zones?latitude=&longitude=', 'latitude: expected a decimal number'],
    ['/safety/score?latitude=91&longitude=3.4', 'latitude'],
    ['/safety/score?latitude=6.5&longitude=3.4&radius_km=0', 'radius_km'],
    ['/safety/score?latitude=48.8566&longitude=2.3522', 'latitude: the point 48.8566, 2.3522 is outside the covered area'],
    ['/safety/route?from_lat=6.5&from_lng=3.4&to_lat=7.4', 'to_lng is required'],
    ['/safety/route?from_lat=6.5&from_lng=3.4&to_lat=7.4&to_lng=3.9&checkpoints=21', 'checkpoints'],
    ['/safety/route?from_lat=6.5&from_lng=3.4&to_lat=7.4&to_lng=3.9&checkpoints=1', 'checkpoints'],
    ['/safety/route?from_lat=6.5&from_lng=3.4&to_lat=30.04&to_lng=31.24', 'to_lat: the point 30.04, 31.24 is outside'],
    ['/danger-zones/analytics?latitude=51.5&longitude=-0.12', 'latitude: the point'],
    ['/danger-zones/heatmap', 'bounds is required'],
    ['/danger-zones/heatmap?bounds=7,3.5,8', 'bounds: expected lat1,lng1,lat2,lng2'],
    ['/danger-zones/heatmap?bounds=7,3.5,8,x', 'bounds: expected lat1,lng1,lat2,lng2'],
    ['/danger-zones/heatmap?bounds=7,3.5,95,4', 'bounds: latitudes'],
    ['/danger-zones/heatmap?bounds=7,3.5,7,4', 'bounds: the box has no area'],
    ['/danger-zones/heatmap?bounds=7,3.5,8,4.5&days=366', 'days'],
    ['/danger-zones/heatmap?bounds=7,3.5,8,4.5&days=0', 'days'],
    ['/danger-zones?severity_min=11', 'severity_min'],
    ['/danger-zones?incident_type=aliens', 'incident_type'],
    ['/danger-zones?latitude=6.5', 'longitude: give latitude and longitude together'],
    ['/danger-zones?limit=101', 'limit'],
  ])('GET %s is a 400 naming the field', async (path, message) => {
    const response = await api.get(path);
    expect(response.status).toBe(400);
    expectErrorBody(response.body, 400, expect.stringContaining(message));
  });

  it('needs the analytics:read scope', async () => {
    const org = await server.createOrganization();
    const noAnalytics = await org.keyWith(['incidents:read']);
    const response = await noAnalytics.get(`/safety/score${query(ABUJA)}`);
    expect(response.status).toBe(403);
    expect(response.body.message).toContain('analytics:read');
    expect((await (await org.keyWith(['analytics:read'])).get(`/safety/score${query(ABUJA)}`)).status).toBe(200);
  });

  it('is documented in the OpenAPI document with the data attribution', async () => {
    const document = (await server.client().get('/openapi.json')).body;
    for (const path of ['/safety/score', '/safety/route', '/danger-zones/analytics', '/danger-zones/heatmap', '/danger-zones']) {
      expect(document.paths[path].get.description).toContain('UCDP');
    }
    expect(document.info.description).toContain('CC BY 4.0');
    for (const citation of ['Introducing the UCDP Georeferenced Event Dataset', 'Introducing the UCDP Candidate Events Dataset', 'Organized violence 1989-2024']) {
      expect(document.info.description).toContain(citation);
      expect(document.paths['/threat/coverage'].get.description).toContain(citation);
    }
    expect(document.tags.find((tag: any) => tag.name === 'Threat intelligence').description).toMatch(/no events for 2025/);
    expect(document.components.schemas.SafetyScore.properties.data).toEqual({ $ref: '#/components/schemas/ThreatDataCurrency' });
    // The reference page carries the attribution in its own HTML, not only through the script that renders the document.
    const page = await server.client().get('/docs');
    expect(page.body).toContain('UCDP Candidate Events Dataset');
    expect(page.body).toContain('Sundberg, Ralph and Erik Melander (2013)');
  });
});
