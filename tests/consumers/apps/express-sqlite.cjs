// A CommonJS Express app: idempotent() + SqlStore on a better-sqlite3 file.
const { mkdtempSync } = require('node:fs');
const { createServer } = require('node:http');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const Database = require('better-sqlite3');
const express = require('express');
// #region require
const { idempotent } = require('@webhook-idempotency/express');
// #endregion require
const { Schema, SqlStore } = require('@webhook-idempotency/sql');
const { exercise } = require('./deliveries.cjs');

async function main() {
  const db = new Database(join(mkdtempSync(join(tmpdir(), 'wi-consumer-')), 'receipts.sqlite'));
  await Schema.createTable(db);
  let runs = 0;
  const app = express();
  app.post(
    '/webhooks',
    express.raw({ type: '*/*' }),
    idempotent({
      store: new SqlStore(db),
      provider: 'acme',
      key: (req) => req.get('x-delivery-id'),
    }),
    (req, res) => res.status(201).json({ order: ++runs, bytes: req.body.length }),
  );
  await exercise(createServer(app), () => runs);
  db.close();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
