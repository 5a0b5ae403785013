// An ES module Express app: idempotent() in transactional mode + SqlStore over a postgres-js
// `sql` on PostgreSQL (WI_CONSUMER_POSTGRES_URL); the order is written through the `sql` of the
// store's sql.begin transaction, taken from the request with requireTransaction.
import { createServer } from 'node:http';
import express from 'express';
import postgres from 'postgres';
import { requireTransaction } from '@webhook-idempotency/core';
import { idempotent } from '@webhook-idempotency/express';
import { Schema, SqlStore } from '@webhook-idempotency/sql';
import { fromPostgres } from '@webhook-idempotency/sql/postgres';
import { exercise } from './deliveries.cjs';

const sql = postgres(process.env.WI_CONSUMER_POSTGRES_URL, { max: 4, onnotice: () => undefined });
await sql`CREATE TABLE IF NOT EXISTS orders (id TEXT PRIMARY KEY)`;
const connection = fromPostgres(sql);
await Schema.createTable(connection);
const store = new SqlStore(connection);
let count = 0;
const app = express();
app.post(
  '/webhooks',
  express.raw({ type: '*/*' }),
  idempotent({
    store,
    provider: 'acme',
    key: (req) => req.get('x-delivery-id'),
    transactional: true,
  }),
  async (req, res) => {
    const tx = requireTransaction(req.idempotency, store);
    await tx`INSERT INTO orders (id) VALUES (${req.get('x-delivery-id')})`;
    res.status(201).json({ order: ++count, bytes: req.body.length });
  },
);
await exercise(createServer(app), () => count);
// The effect itself: one row in the orders table, or this app fails.
const [{ n }] = await sql`SELECT COUNT(*)::int AS n FROM orders`;
await sql.end();
if (n !== 1) throw new Error(`expected 1 order row, found ${n}`);
