// Compiled (strict, `skipLibCheck: false`) by tests/consumers/packed-tarballs.test.ts in the app
// the README's Install section makes: our tarballs with Express and better-sqlite3 and their
// types, and no other database driver (no knex, pg or mysql2). Every declaration it reaches must
// compile, and the store's transaction handle is still better-sqlite3's Database, not `any`.
import Database from 'better-sqlite3';
import { IdempotencyGuard, RequestKey, requireTransaction } from '@webhook-idempotency/core';
import { idempotent } from '@webhook-idempotency/express';
import {
  InboxSchema,
  ReceiptsAdmin,
  Schema,
  SqlInbox,
  SqlStore,
  type TransactionOf,
} from '@webhook-idempotency/sql';
import express from 'express';

const db = new Database(':memory:');
await Schema.createTable(db);
await InboxSchema.createTable(db);
const store = new SqlStore(db);
const handle: TransactionOf<Database.Database> = db;
const guard = new IdempotencyGuard(store, { transactional: true });
await guard.run(new RequestKey('github', 'd_1'), async (context) => {
  const transaction: Database.Database = requireTransaction(context, store);
  // @ts-expect-error the handle is better-sqlite3's Database, not `any`
  const wrong: number = requireTransaction(context, store);
  return [transaction.prepare('SELECT 1').get(), wrong];
});

const app = express();
app.post(
  '/webhooks/github',
  express.raw({ type: 'application/json' }),
  idempotent({ store, provider: 'github', key: (req) => req.get('x-github-delivery') }),
  (_req, res) => {
    res.json({ ok: true });
  },
);

export const made = { app, handle, admin: new ReceiptsAdmin(db), inbox: new SqlInbox(db) };
