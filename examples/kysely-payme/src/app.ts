/**
 * @module The Payme merchant endpoint on Express, with Kysely on MariaDB/MySQL as the data layer.
 * The Payme preset checks the Basic-auth cash-desk key before any claim, keys receipts on the
 * JSON-RPC method and transaction id, and lets the read-only checks pass through; the guarded
 * methods write through Kysely's own transaction (`Transaction<ShopDatabase>`), which commits
 * together with the receipt.
 */
import express from 'express';
import { Kysely, MysqlDialect } from 'kysely';
import { createPool } from 'mysql2';
import { requireTransaction } from '@webhook-idempotency/core';
import { idempotent } from '@webhook-idempotency/express';
import * as providers from '@webhook-idempotency/providers';
import type { EventOf } from '@webhook-idempotency/providers';
import { Schema, SqlStore } from '@webhook-idempotency/sql';
import { fromKysely } from '@webhook-idempotency/sql/kysely';
import { createTables, handle, PaymeError, type ShopDatabase } from './shop';

/** Options of {@link createPaymeApp}. */
export interface PaymeAppOptions {
  /** A MariaDB/MySQL URL: `mysql://user:password@host:3306/shop`. */
  databaseUrl: string;
  /** The cash-desk key Payme gave you: the Basic-auth password of its calls. */
  paymeKey: string;
}

/** The app, the Kysely instance it runs on, and how to close it. */
export interface PaymeApp {
  app: express.Express;
  db: Kysely<ShopDatabase>;
  close(): Promise<void>;
}

/** Builds the app with `POST /payme`. */
export async function createPaymeApp(options: PaymeAppOptions): Promise<PaymeApp> {
  const db = new Kysely<ShopDatabase>({
    dialect: new MysqlDialect({
      pool: createPool({ uri: options.databaseUrl, connectionLimit: 10 }),
    }),
  });
  await createTables(db);
  const connection = fromKysely(db);
  await Schema.createTable(connection);
  const store = new SqlStore(connection);
  // Payme publishes no TypeScript types: the preset's own JSON-RPC call type (`method`, `params`, `id`).
  const preset = providers.payme({ password: options.paymeKey });

  const app = express();
  app.post(
    '/payme',
    express.json(),
    idempotent({
      store,
      preset,
      transactional: true,
    }),
    async (req, res) => {
      const { method, params = {}, id }: EventOf<typeof preset> = req.body;
      // Guarded methods get Kysely's transaction (typed from the store: Transaction<ShopDatabase>);
      // the checks that pass through read on `db`.
      const trx = req.idempotency ? requireTransaction(req.idempotency, store) : undefined;
      try {
        res.json({ result: await handle(trx ?? db, method, params, Date.now()), id });
      } catch (error) {
        // A business error is a definite answer: HTTP 200 with the Payme code, stored and replayed.
        if (error instanceof PaymeError) {
          res.json({ error: error.toJSON(), id });
          return;
        }
        // Anything else: a JSON-RPC system error with 500, which Payme retries; never stored,
        // and the transaction (with whatever the method wrote) is rolled back.
        res.status(500).json({ error: { code: -32400, message: { en: String(error) } }, id });
      }
    },
  );
  return { app, db, close: () => db.destroy() };
}
