// A CommonJS Express app: idempotent() in transactional mode + SqlStore over Drizzle on a
// better-sqlite3 file; the order is written through the Drizzle database the handler is given.
const { mkdtempSync } = require('node:fs');
const { createServer } = require('node:http');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const Database = require('better-sqlite3');
const express = require('express');
const { drizzle } = require('drizzle-orm/better-sqlite3');
const { sqliteTable, text } = require('drizzle-orm/sqlite-core');
const { idempotent } = require('@webhook-idempotency/express');
const { Schema, SqlStore } = require('@webhook-idempotency/sql');
const { fromDrizzle } = require('@webhook-idempotency/sql/drizzle');
const { exercise } = require('./deliveries.cjs');

const orders = sqliteTable('orders', { id: text('id').primaryKey() });

async function main() {
  const file = new Database(join(mkdtempSync(join(tmpdir(), 'wi-consumer-')), 'shop.sqlite'));
  file.exec('CREATE TABLE orders (id TEXT PRIMARY KEY)');
  const db = drizzle(file);
  const connection = fromDrizzle(db);
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
    (req, res) => {
      req.idempotency.transaction
        .insert(orders)
        .values({ id: req.get('x-delivery-id') })
        .run();
      res.status(201).json({ order: ++count, bytes: req.body.length });
    },
  );
  await exercise(createServer(app), () => db.select().from(orders).all().length);
  file.close();
}

main();
