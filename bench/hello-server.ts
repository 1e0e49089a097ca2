/**
 * The baseline: a bare Express 5 app answering GET / with {"hello":"world"}, in a process of its
 * own. Prints `{"benchReady":true,"url":...}` once listening on 127.0.0.1 (port chosen by the OS).
 */
import type { AddressInfo } from 'node:net';
import express from 'express';
import { announceReady, stopOnSignalOrOrphan } from './lib/child-side.ts';

const app = express();
app.get('/', (_req, res) => {
  res.json({ hello: 'world' });
});

const server = app.listen(0, '127.0.0.1');
server.once('listening', () => {
  const { port } = server.address() as AddressInfo;
  announceReady({ url: `http://127.0.0.1:${port}/` });
});
server.once('error', (err) => {
  process.stderr.write(`hello server failed: ${err.message}\n`);
  process.exit(1);
});

stopOnSignalOrOrphan(
  () =>
    new Promise<void>((done) => {
      server.close(() => done());
      server.closeIdleConnections();
    }),
);
