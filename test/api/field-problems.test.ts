import { describe, expect, it } from 'vitest';
import { incidentBody, serverForSuite } from '../support/server.ts';

/**
 * A bad request names every problem at once: a partner fixes their body in one round trip, not
 * one field per try. `message` stays the first problem, word for word (kiosks in the field match
 * phrases in it); `errors` lists them all, one per field.
 */
describe('invalid input names every problem', () => {
  const suite = serverForSuite();

  it('an incident with only a category: the message names the first missing field, errors name all three', async () => {
    const res = await suite.org.live.post('/incidents', { category: 'sos' });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(400);
    expect(res.body.message).toBe('severity is required');
    expect(res.body.errors).toEqual([
      { field: 'severity', message: 'severity is required' },
      { field: 'subject', message: 'subject is required' },
      { field: 'location', message: 'location is required' },
    ]);
  });

  it('nested and unknown fields each get their own entry, by path', async () => {
    const res = await suite.org.live.post('/incidents', {
      ...incidentBody(),
      severity: 'apocalyptic',
      subject: { phone: '+2348012345678' },
      location: { coordinates: [3.3792, 200] },
      colour: 'red',
      mood: 'calm',
    });
    expect(res.status).toBe(400);
    const fields = (res.body.errors as { field: string; message: string }[]).map((problem) => problem.field);
    expect(fields).toEqual(expect.arrayContaining(['severity', 'subject.name', 'location.coordinates[1]', 'colour', 'mood']));
    expect(res.body.message).toBe(res.body.errors[0].message);
    for (const problem of res.body.errors) expect(problem.message).toContain(problem.field);
  });

  it('a query with two bad values names both', async () => {
    const res = await suite.org.live.get('/incidents?page=0&limit=1000');
    expect(res.status).toBe(400);
    expect(res.body.errors.map((problem: { field: string }) => problem.field)).toEqual(['page', 'limit']);
  });

  it('errors other than invalid input carry no list', async () => {
    const missing = await suite.org.live.get('/incidents/inc_00000000000000000000000000');
    expect(missing.status).toBe(404);
    expect(missing.body).not.toHaveProperty('errors');
    const malformed = await suite.org.live.post('/incidents', undefined, { rawBody: '{"category":' });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toEqual({ code: 400, message: 'Malformed JSON in request body' });
  });
});
