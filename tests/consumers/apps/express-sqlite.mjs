// An ES module Express app: idempotent() + SqlStore on a better-sqlite3 file.
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import express from 'express';
// #region import
import { idempotent } from '@webhook-idempotency/express';
// #endregion import
import { Schema, SqlStore } from '@webhook-idempotency/sql';
import { exercise } from './deliveries.cjs';

const db = new Database(join(mkdtempSync(join(tmpdir(), 'wi-consumer-')), 'receipts.sqlite'));
await Schema.createTable(db);
let runs = 0;
const app = express();
app.post(
  '/webhooks',
  express.raw({ type: '*/*' }),
  idempotent({ store: new SqlStore(db), provider: 'acme', key: (req) => req.get('x-delivery-id') }),
  (req, res) => res.status(201).json({ order: ++runs, bytes: req.body.length }),
);
await exercise(createServer(app), () => runs);
db.close();
