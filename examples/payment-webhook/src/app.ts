/**
 * @module The full Payme endpoint a user can copy: auth first, then the guard, the business write
 * inside the guard's transaction, the answer.
 */
import Database from 'better-sqlite3';
import express, {
  type ErrorRequestHandler,
  type Express,
  type Request,
  type Response,
} from 'express';
import { type GuardEvent, requireTransaction } from '@webhook-idempotency/core';
import * as providers from '@webhook-idempotency/providers';
import type { EventOf } from '@webhook-idempotency/providers';
import { idempotencyErrors, idempotent, saveRawBody } from '@webhook-idempotency/express';
import { Schema, SqlStore } from '@webhook-idempotency/sql';
import { createShopTables, handlePaymeMethod, PaymeError } from './shop';

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
  // Payme publishes no TypeScript types: the preset's own JSON-RPC call type (`method`, `params`, `id`).
  const preset = providers.payme({ password: options.paymeKey });
  const app = express();

  app.post(
    '/payme',
    // Payme signs nothing, so the raw bytes serve only the fingerprint fallback; keep them anyway.
    express.json({ verify: saveRawBody }),
    idempotent({
      store,
      preset,
      transactional: true,
      staleAfterSeconds: options.staleAfterSeconds,
      onEvent: options.onEvent,
    }),
    (req: Request, res: Response) => {
      const { method, params = {}, id }: EventOf<typeof preset> = req.body;
      // Guarded methods run inside the guard's transaction: their writes commit with the receipt.
      // Pass-through methods (CheckTransaction, GetStatement, …) read committed data on `db`.
      const tx = req.idempotency ? requireTransaction(req.idempotency, store) : undefined;
      if (req.idempotency) {
        const runKey = `${method}:${String(params.id)}`;
        handlerRuns.set(runKey, (handlerRuns.get(runKey) ?? 0) + 1);
        options.beforeWrite?.(method, params);
      }
      try {
        const result = handlePaymeMethod(tx ?? db, method, params, Date.now());
        res.json({ result, id });
      } catch (error) {
        // A business error is a definite answer: Payme gets it with HTTP 200, and a retry gets it again.
        if (error instanceof PaymeError) res.json({ error: error.toJSON(), id });
        else throw error;
      }
    },
  );

  // Anything unexpected: idempotencyErrors() marks the receipt failed with the real error (and the
  // transaction is rolled back), then HTTP 500, which Payme reads as "system error, try again":
  // the redelivery runs the handler afresh.
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
