/**
 * @module The Payme merchant endpoint on Express, with Kysely on MariaDB/MySQL as the data layer.
 * The Payme preset checks the Basic-auth cash-desk key before any claim, keys receipts on the
 * JSON-RPC method and transaction id, and lets the read-only checks pass through; each writing
 * method is a route that writes through Kysely's own transaction (`Transaction<ShopDatabase>`),
 * which commits together with the receipt.
 */
import express, { type ErrorRequestHandler } from 'express';
import { Kysely, MysqlDialect } from 'kysely';
import { createPool } from 'mysql2';
import { requireTransaction } from '@webhook-idempotency/core';
import { routes } from '@webhook-idempotency/core/routes';
import { idempotencyErrors, idempotent } from '@webhook-idempotency/express';
import * as providers from '@webhook-idempotency/providers';
import type { EventOf } from '@webhook-idempotency/providers';
import { Schema, SqlStore } from '@webhook-idempotency/sql';
import { fromKysely } from '@webhook-idempotency/sql/kysely';
import {
  answerQuery,
  createTables,
  createTransaction,
  methodNotFound,
  PaymeError,
  performTransaction,
  type ShopDatabase,
} from './shop';

/**
 * A method's JSON-RPC answer: `{ result, id }`, or `{ error, id }` for a business error, a definite
 * answer (HTTP 200, stored and replayed like a success). Anything else is thrown.
 */
async function rpcAnswer(id: unknown, run: () => Promise<unknown>): Promise<object> {
  try {
    return { result: await run(), id };
  } catch (error) {
    if (error instanceof PaymeError) return { error: error.toJSON(), id };
    throw error;
  }
}

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
  // Payme publishes no TypeScript types: each route gets the preset's own JSON-RPC call type
  // (`method`, `params`, `id`). Payme names the event in `method`; the writing methods run on
  // Kysely's transaction (typed from the store: Transaction<ShopDatabase>), which commits together
  // with the receipt. A method the shop does not implement gets JSON-RPC -32601 from the
  // catch-all: Payme wants an error answer, not the route set's 200 `{"received":true}`.
  const payme = routes(providers.payme({ password: options.paymeKey }), {
    CreateTransaction: ({ params, id }, context) =>
      rpcAnswer(id, () =>
        createTransaction(requireTransaction(context, store), params, Date.now()),
      ),
    PerformTransaction: ({ params, id }, context) =>
      rpcAnswer(id, () =>
        performTransaction(requireTransaction(context, store), params, Date.now()),
      ),
    '*': ({ method, id }) => ({ error: methodNotFound(method).toJSON(), id }),
  });

  const app = express();
  app.post(
    '/payme',
    express.json(),
    idempotent({ store, preset: payme, transactional: true }),
    // Only what the preset passes through unguarded, before any routing, gets here: the read-only
    // checks, which read committed data on `db`, and calls it cannot key.
    async (req, res) => {
      const { method, params = {}, id }: EventOf<typeof payme> = req.body;
      res.json(await rpcAnswer(id, () => answerQuery(db, method, params)));
    },
  );
  // Anything else a route throws: the receipt is failed and the transaction (with whatever the
  // method wrote) rolled back; a JSON-RPC system error with 500, which Payme retries, never stored.
  app.use(idempotencyErrors());
  const failed: ErrorRequestHandler = (error, req, res, _next) => {
    res
      .status(500)
      .json({ error: { code: -32400, message: { en: String(error) } }, id: req.body?.id ?? null });
  };
  app.use(failed);
  return { app, db, close: () => db.destroy() };
}
