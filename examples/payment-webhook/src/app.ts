/**
 * @module The full Payme endpoint a user can copy: auth first, then the guard, each writing
 * method's route (its business write inside the guard's transaction), the answer.
 */
import Database from 'better-sqlite3';
import express, {
  type ErrorRequestHandler,
  type Express,
  type Request,
  type Response,
} from 'express';
import { type GuardEvent, requireTransaction } from '@webhook-idempotency/core';
import { type RouteContext, routes } from '@webhook-idempotency/core/routes';
import * as providers from '@webhook-idempotency/providers';
import type { EventOf, PaymeMinimalCall } from '@webhook-idempotency/providers';
import { idempotencyErrors, idempotent, saveRawBody } from '@webhook-idempotency/express';
import { Schema, SqlStore } from '@webhook-idempotency/sql';
import {
  answerQuery,
  cancelTransaction,
  createShopTables,
  createTransaction,
  methodNotFound,
  PaymeError,
  type PaymeParams,
  performTransaction,
} from './shop';

/** Options of {@link createPaymentApp}. */
export interface PaymentAppOptions {
  /** Path of the SQLite database file (created if missing). */
  file: string;
  /** The cash-desk key Payme gave you: the Basic-auth password of its calls. */
  paymeKey: string;
  /** Seconds before a claim of a worker that died is taken over. Defaults to 300. */
  staleAfterSeconds?: number;
  /** The guard's events, for logs and metrics. */
  onEvent?: (event: GuardEvent) => void;
  /** Called before each guarded business write: lets the demo inject a failure. */
  beforeWrite?: (method: string, params: Record<string, unknown>) => void;
}

/** The app plus what the demo and tests look at. */
export interface PaymentApp {
  app: Express;
  /** The app's own connection (reads, test set-up). */
  db: Database.Database;
  /** How many times the guarded handler started, per `method:id`. */
  handlerRuns: Map<string, number>;
  close(): void;
}

/**
 * A method's JSON-RPC answer: `{ result, id }`, or `{ error, id }` for a business error, a definite
 * answer (HTTP 200, stored and replayed like a success). Anything else is thrown.
 */
async function rpcAnswer(id: unknown, run: () => unknown): Promise<object> {
  try {
    return { result: await run(), id };
  } catch (error) {
    if (error instanceof PaymeError) return { error: error.toJSON(), id };
    throw error;
  }
}

/**
 * Builds the Express app with a guarded `POST /payme` endpoint over a SQLite file.
 *
 * Two connections to one file: the store's, which holds the guard's transaction while a handler
 * runs (better-sqlite3 is one synchronous connection, so the store serialises its use), and the
 * app's, for reads that must see only committed data. WAL lets them work side by side.
 */
export async function createPaymentApp(options: PaymentAppOptions): Promise<PaymentApp> {
  const storeDb = new Database(options.file);
  const db = new Database(options.file);
  for (const conn of [storeDb, db]) {
    conn.pragma('journal_mode = WAL');
    conn.pragma('busy_timeout = 5000');
  }
  createShopTables(db);
  await Schema.createTable(storeDb);

  const handlerRuns = new Map<string, number>();
  const store = new SqlStore(storeDb);

  /** A writing method as a route: counted, run on the guard's transaction, answered in JSON-RPC. */
  const guarded =
    (method: (db: Database.Database, params: PaymeParams, now: number) => unknown) =>
    (call: PaymeMinimalCall, context: RouteContext) => {
      const runKey = `${call.method}:${String(call.params.id)}`;
      handlerRuns.set(runKey, (handlerRuns.get(runKey) ?? 0) + 1);
      options.beforeWrite?.(call.method, call.params);
      // The guard's transaction: the method's writes commit with the receipt.
      const tx = requireTransaction(context, store);
      return rpcAnswer(call.id, () => method(tx, call.params, Date.now()));
    };
  // Payme publishes no TypeScript types: each route gets the preset's own JSON-RPC call type
  // (`method`, `params`, `id`). Payme names the event in `method`; a method the shop does not
  // implement is answered with JSON-RPC -32601 by the catch-all, since Payme wants an error
  // answer, not the route set's 200 `{"received":true}`.
  const payme = routes(providers.payme({ password: options.paymeKey }), {
    CreateTransaction: guarded(createTransaction),
    PerformTransaction: guarded(performTransaction),
    CancelTransaction: guarded(cancelTransaction),
    '*': (call) => ({ error: methodNotFound(call.method).toJSON(), id: call.id }),
  });
  const app = express();

  app.post(
    '/payme',
    // Payme signs nothing, so the raw bytes serve only the fingerprint fallback; keep them anyway.
    express.json({ verify: saveRawBody }),
    idempotent({
      store,
      preset: payme,
      transactional: true,
      staleAfterSeconds: options.staleAfterSeconds,
      onEvent: options.onEvent,
    }),
    // Only what the preset passes through unguarded, before any routing, gets here: the read-only
    // methods (CheckPerformTransaction, CheckTransaction, GetStatement), which report the current
    // state on `db` every time, and calls it cannot key.
    async (req: Request, res: Response) => {
      const { method, params = {}, id }: EventOf<typeof payme> = req.body;
      res.json(await rpcAnswer(id, () => answerQuery(db, method, params)));
    },
  );

  // Anything unexpected: idempotencyErrors() marks the receipt failed with the real error (and the
  // transaction is rolled back), then HTTP 500, which Payme reads as "system error, try again":
  // the redelivery runs the route afresh.
  app.use(idempotencyErrors());
  const onError: ErrorRequestHandler = (error, req, res, _next) => {
    res.status(500).json({
      error: {
        code: -32400,
        message: {
          ru: 'Системная ошибка',
          uz: 'Tizim xatosi',
          en: String(error?.message ?? error),
        },
      },
      id: req.body?.id ?? null,
    });
  };
  app.use(onError);

  return {
    app,
    db,
    handlerRuns,
    close() {
      db.close();
      storeDb.close();
    },
  };
}
