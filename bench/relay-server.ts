/**
 * The webhooks section's baseline: a bare Express 5 app that answers POST /v1/external/incidents
 * with 201 and, once the answer is sent, POSTs a small JSON event (unsigned) to RELAY_URL
 * over a keep-alive connection pool, nothing stored. The floor for "API call in → outbound
 * delivery out" on this machine. Prints `{"benchReady":true,"baseUrl":...}`.
 *
 * Environment: RELAY_URL (required: the receiver, on loopback).
 */
import { randomUUID } from 'node:crypto';
import express from 'express';
import { Agent, request } from 'undici';
import { serveOnLoopback } from './lib/child-side.ts';

const relayUrl = process.env.RELAY_URL;
if (!relayUrl) throw new Error('relay-server.ts: RELAY_URL is required');

const agent = new Agent();
const app = express();
app.use(express.json());
app.post('/v1/external/incidents', (req, res) => {
  const incidentId = `inc_${randomUUID()}`;
  const eventId = `evt_${randomUUID()}`;
  res.on('finish', () => {
    const body = JSON.stringify({ id: eventId, type: 'incident.created', created_at: new Date().toISOString(), data: { incident_id: incidentId, ...req.body } });
    request(relayUrl, {
      method: 'POST',
      dispatcher: agent,
      headers: { 'content-type': 'application/json', 'svc-event-id': eventId, 'svc-event-type': 'incident.created' },
      body,
    })
      .then((response) => response.body.dump())
      .catch((err: unknown) => process.stderr.write(`relay: ${String(err)}\n`));
  });
  res.status(201).json({ incident: { incident_id: incidentId } });
});

serveOnLoopback(app, 'relay server', (origin) => ({ baseUrl: `${origin}/v1/external` }), () => agent.close());
