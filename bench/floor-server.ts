/**
 * The http-api section's `floor` target: a bare Express 5 app (no auth, no validation library, no
 * logging) doing the least database work each kind of request needs, on DATABASE_URL's engine
 * (PostgreSQL for a postgres:// URL, as server/config.ts `isPostgresUrl` decides; otherwise a
 * SQLite file). It keeps to its own table, `floor_rows`, created if missing, with one row to read.
 *
 * - GET /read/:id: one primary-key SELECT, answered with the row as JSON.
 * - POST /write (JSON body): one autocommit INSERT of the body under a random id, 201 `{id}`.
 *   Not durable on purpose (SQLite WAL with synchronous=NORMAL; PostgreSQL synchronous_commit=off),
 *   so it costs less than a durable one: a measure of what one statement per request costs here,
 *   not a rival implementation.
 *
 * Prints `{"benchReady":true,"baseUrl":...,"readId":...}`.
 *
 * Environment: DATABASE_URL (required: a file path, `sqlite:`/`file:` URL, or postgres:// URL).
 */
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import express from 'express';
import pg from 'pg';
import { serveOnLoopback } from './lib/child-side.ts';

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) throw new Error('floor-server.ts: DATABASE_URL is required');

const CREATE = 'CREATE TABLE IF NOT EXISTS floor_rows (id text PRIMARY KEY, body text NOT NULL)';
const readId = randomUUID();
const readBody = JSON.stringify({ floor: 'row to read' });

const app = express();
let closeDatabase: () => Promise<void>;

if (/^postgres(ql)?:\/\//.test(databaseUrl)) {
  // Tsaro's pool size. synchronous_commit goes in the start-up packet: per connection, no extra
  // round trip. Named statements are parsed once per connection, cheaper than Kysely's unnamed ones.
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10, keepAlive: true, options: '-c synchronous_commit=off' });
  await pool.query(CREATE);
  await pool.query('INSERT INTO floor_rows (id, body) VALUES ($1, $2)', [readId, readBody]);
  const { rows } = await pool.query<{ synchronous_commit: string }>('SHOW synchronous_commit');
  if (rows[0]?.synchronous_commit !== 'off') throw new Error(`floor-server.ts: synchronous_commit is ${rows[0]?.synchronous_commit}`);
  app.get('/read/:id', async (req, res) => {
    const result = await pool.query({ name: 'floor-read', text: 'SELECT id, body FROM floor_rows WHERE id = $1', values: [req.params.id] });
    if (result.rows[0]) res.json(result.rows[0]);
    else res.status(404).end();
  });
  app.post('/write', express.json(), async (req, res) => {
    const id = randomUUID();
    await pool.query({ name: 'floor-write', text: 'INSERT INTO floor_rows (id, body) VALUES ($1, $2)', values: [id, JSON.stringify(req.body)] });
    res.status(201).json({ id });
  });
  closeDatabase = () => pool.end();
} else {
  const path = databaseUrl.replace(/^(sqlite:\/\/|sqlite:|file:)/, '');
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  // No fsync at COMMIT (only at checkpoints): cheaper than Tsaro's WAL sync before every answer.
  db.pragma('synchronous = NORMAL');
  db.exec(CREATE);
  db.prepare('INSERT INTO floor_rows (id, body) VALUES (?, ?)').run(readId, readBody);
  const select = db.prepare('SELECT id, body FROM floor_rows WHERE id = ?');
  const insert = db.prepare('INSERT INTO floor_rows (id, body) VALUES (?, ?)');
  app.get('/read/:id', (req, res) => {
    const row = select.get(req.params.id);
    if (row) res.json(row);
    else res.status(404).end();
  });
  app.post('/write', express.json(), (req, res) => {
    const id = randomUUID();
    insert.run(id, JSON.stringify(req.body));
    res.status(201).json({ id });
  });
  closeDatabase = async () => {
    db.close();
  };
}

serveOnLoopback(app, 'floor server', (origin) => ({ baseUrl: origin, readId }), () => closeDatabase());
