// An ES module Express app: idempotent() in transactional mode + SqlStore over Kysely on a
// better-sqlite3 file; the order is written through Kysely's own transaction.
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import express from 'express';
import { Kysely, SqliteDialect } from 'kysely';
import { idempotent } from '@webhook-idempotency/express';
import { Schema, SqlStore } from '@webhook-idempotency/sql';
import { fromKysely } from '@webhook-idempotency/sql/kysely';
import { exercise } from './deliveries.cjs';

const file = new Database(join(mkdtempSync(join(tmpdir(), 'wi-consumer-')), 'shop.sqlite'));
const db = new Kysely({ dialect: new SqliteDialect({ database: file }) });
await db.schema
  .createTable('orders')
  .addColumn('id', 'text', (c) => c.primaryKey())
  .execute();
const connection = fromKysely(db);
await Schema.createTable(connection);
let count = 0;
const app = express();
app.post(
  '/webhooks',
  express.raw({ type: '*/*' }),
  idempotent({
    store: new SqlStore(connection),
    provider: 'acme',
    key: (req) => req.get('x-delivery-id'),
    transactional: true,
  }),
  async (req, res) => {
    await req.idempotency.transaction
      .insertInto('orders')
      .values({ id: req.get('x-delivery-id') })
      .execute();
    res.status(201).json({ order: ++count, bytes: req.body.length });
  },
);
// The effect itself: rows in the orders table.
await exercise(createServer(app), () => file.prepare('SELECT COUNT(*) AS n FROM orders').get().n);
await db.destroy();
