/**
 * @module A benchmark server, run in its own process: the same Express route bare or guarded,
 * reporting its own CPU time over IPC so the load generator's work is not counted.
 */
import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import express, { type RequestHandler } from 'express';
import { InMemoryStore } from '@webhook-idempotency/core';
import { idempotent, saveRawBody } from '@webhook-idempotency/express';
import { Schema, SqlStore } from '@webhook-idempotency/sql';

export type ServerMode = 'bare' | 'memory' | 'sqlite';

async function sqliteStore(): Promise<SqlStore<Database.Database>> {
  const db = new Database(join(mkdtempSync(join(tmpdir(), 'wi-bench-')), 'bench.sqlite'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  await Schema.createTable(db);
  return new SqlStore(db);
}

async function guardFor(mode: ServerMode): Promise<RequestHandler[]> {
  if (mode === 'bare') return [];
  const store = mode === 'memory' ? new InMemoryStore() : await sqliteStore();
  return [idempotent({ store, provider: 'bench', key: (req) => req.get('x-event-id') })];
}

async function main(): Promise<void> {
  const mode = process.argv[2] as ServerMode;
  const app = express();
  app.post(
    '/hook',
    express.json({ verify: saveRawBody }),
    ...(await guardFor(mode)),
    (_req, res) => {
      res.json({ received: true });
    },
  );
  const server = app.listen(0, '127.0.0.1', () => {
    process.send!({ port: (server.address() as AddressInfo).port });
  });
  process.on('message', (message) => {
    if (message === 'cpu') process.send!({ cpu: process.cpuUsage() });
    if (message === 'stop') server.close(() => process.exit(0));
  });
}

void main();
