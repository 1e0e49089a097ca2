/**
 * The baseline: a bare Express 5 app answering GET / with {"hello":"world"}, in a process of its
 * own. Prints `{"benchReady":true,"url":...}` once listening on 127.0.0.1 (port chosen by the OS).
 *
 * GET /busy/:us gives the same answer after `us` microseconds (at most 10,000) of CPU spent in a
 * loop: the http-api section's `budget` rows, what a server reaches that does nothing but cost
 * that much more per request than the bare one.
 */
import express from 'express';
import { serveOnLoopback } from './lib/child-side.ts';

const app = express();
app.get('/', (_req, res) => {
  res.json({ hello: 'world' });
});
app.get('/busy/:us', (req, res) => {
  const us = Math.min(Math.max(Number(req.params.us) || 0, 0), 10_000);
  const until = process.hrtime.bigint() + BigInt(Math.round(us * 1000));
  while (process.hrtime.bigint() < until);
  res.json({ hello: 'world' });
});

serveOnLoopback(app, 'hello server', (origin) => ({ url: `${origin}/` }));
