/**
 * The baseline: a bare Express 5 app answering GET / with {"hello":"world"}, in a process of its
 * own. Prints `{"benchReady":true,"url":...}` once listening on 127.0.0.1 (port chosen by the OS).
 */
import express from 'express';
import { serveOnLoopback } from './lib/child-side.ts';

const app = express();
app.get('/', (_req, res) => {
  res.json({ hello: 'world' });
});

serveOnLoopback(app, 'hello server', (origin) => ({ url: `${origin}/` }));
