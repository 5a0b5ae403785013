/**
 * @module The Payme endpoint on NestJS: `IdempotencyModule.forRootAsync` takes the store from the
 * database module and builds the Payme route set, `@Idempotent()` guards the controller method,
 * and each writing Payme method is a route that writes through the guard's transaction.
 */
import 'reflect-metadata';
import {
  type ArgumentsHost,
  Body,
  Catch,
  Controller,
  type ExceptionFilter,
  HttpCode,
  type INestApplication,
  Module,
  Post,
  UseFilters,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { requireTransaction } from '@webhook-idempotency/core';
import { type RouteContext, routes } from '@webhook-idempotency/core/routes';
import * as providers from '@webhook-idempotency/providers';
import type { PaymeMinimalCall } from '@webhook-idempotency/providers';
import { Idempotent, IdempotencyModule } from '@webhook-idempotency/nestjs';
import { Schema, SqlStore } from '@webhook-idempotency/sql';
import Database from 'better-sqlite3';
import { methodNotFound, PaymeError, Shop } from './shop';

/** Options of {@link createPaymeApp}. */
export interface PaymeAppOptions {
  /** Path of the SQLite database file (created if missing). */
  file: string;
  /** The cash-desk key Payme gave you: the Basic-auth password of its calls. */
  paymeKey: string;
  /** `'express'` (default) or `'fastify'`. */
  platform?: 'express' | 'fastify';
}

/** The app, plus what the tests look at. */
export interface PaymeApp {
  app: INestApplication;
  shop: Shop;
  /** How many times a guarded Payme method ran, per `method:id`. */
  runs: Map<string, number>;
  close(): Promise<void>;
}

const STORE_DB = Symbol('store-db');
const PAYME_KEY = Symbol('payme-key');

/**
 * Anything unexpected: HTTP 500 with a JSON-RPC "system error", which Payme retries. The guard has
 * already marked the receipt failed (and rolled the transaction back) when this runs, so the
 * retry runs the method afresh; this answer is never stored.
 */
@Catch()
class SystemErrorFilter implements ExceptionFilter {
  catch(error: unknown, host: ArgumentsHost) {
    const http = host.switchToHttp();
    const body = {
      error: {
        code: -32400,
        message: { ru: 'Системная ошибка', uz: 'Tizim xatosi', en: String(error) },
      },
      id: http.getRequest<{ body?: PaymeMinimalCall }>().body?.id ?? null,
    };
    const res = http.getResponse();
    if (typeof res.code === 'function') res.code(500).send(body);
    else res.status(500).json(body);
  }
}

/**
 * A method's JSON-RPC answer: `{ result, id }`, or `{ error, id }` for a business error, a definite
 * answer (HTTP 200, stored and replayed like a success). Anything else is thrown.
 */
function rpcAnswer(id: unknown, run: () => unknown): object {
  try {
    return { result: run(), id };
  } catch (error) {
    if (error instanceof PaymeError) return { error: error.toJSON(), id };
    throw error;
  }
}

/**
 * The Payme route set: each writing method its route, run on the guard's transaction (its rows
 * commit with the receipt), counted in `runs`. Payme publishes no TypeScript types: each route
 * gets the preset's own JSON-RPC call type (`method`, `params`, `id`). A method the shop does not
 * implement gets JSON-RPC -32601 from the catch-all: Payme wants an error answer, not the route
 * set's 200 `{"received":true}`.
 */
function paymeRoutes(
  paymeKey: string,
  store: SqlStore<Database.Database>,
  shop: Shop,
  runs: Map<string, number>,
) {
  const guarded =
    (method: (db: Database.Database, params: PaymeMinimalCall['params'], now: number) => unknown) =>
    (call: PaymeMinimalCall, context: RouteContext) => {
      const runKey = `${call.method}:${String(call.params.id)}`;
      runs.set(runKey, (runs.get(runKey) ?? 0) + 1);
      const tx = requireTransaction(context, store);
      return rpcAnswer(call.id, () => method(tx, call.params, Date.now()));
    };
  return routes(providers.payme({ password: paymeKey }), {
    CreateTransaction: guarded((db, params, now) => shop.createTransaction(db, params, now)),
    PerformTransaction: guarded((db, params, now) => shop.performTransaction(db, params, now)),
    '*': ({ method, id }) => ({ error: methodNotFound(method).toJSON(), id }),
  });
}

@Controller()
class PaymeController {
  constructor(private readonly shop: Shop) {}

  @Post('payme')
  @HttpCode(200)
  @UseFilters(SystemErrorFilter)
  @Idempotent() // the Payme route set comes from the module options, built with the key from DI
  answer(@Body() call: PaymeMinimalCall) {
    // The route set answers every call it guards. Only what the preset passes through unguarded,
    // before any routing, gets here: the read-only queries (CheckPerformTransaction,
    // CheckTransaction), which read on the shop's connection, and calls it cannot key.
    const { method, params = {}, id } = call;
    return rpcAnswer(id, () => this.shop.query(method, params));
  }
}

/**
 * Two connections to one SQLite file: the store's, which holds the guard's transaction while a
 * method runs, and the shop's, for reads that must see only committed data (WAL lets them work
 * side by side).
 */
function databaseModule(file: string, paymeKey: string) {
  const storeDb = new Database(file);
  const db = new Database(file);
  for (const conn of [storeDb, db]) {
    conn.pragma('journal_mode = WAL');
    conn.pragma('busy_timeout = 5000');
  }
  @Module({
    providers: [
      { provide: STORE_DB, useValue: storeDb },
      { provide: PAYME_KEY, useValue: paymeKey },
      { provide: Shop, useValue: new Shop(db) },
    ],
    exports: [STORE_DB, PAYME_KEY, Shop],
  })
  class DatabaseModule {}
  const close = () => {
    db.close();
    storeDb.close();
  };
  return { DatabaseModule, close };
}

/** Builds and initialises the Nest app with a guarded `POST /payme` over a SQLite file. */
export async function createPaymeApp(options: PaymeAppOptions): Promise<PaymeApp> {
  const { DatabaseModule, close } = databaseModule(options.file, options.paymeKey);
  const runs = new Map<string, number>();

  @Module({
    imports: [
      DatabaseModule,
      IdempotencyModule.forRootAsync({
        imports: [DatabaseModule],
        inject: [STORE_DB, PAYME_KEY, Shop],
        useFactory: async (storeDb: Database.Database, paymeKey: string, shop: Shop) => {
          await Schema.createTable(storeDb);
          const store = new SqlStore(storeDb);
          return { store, preset: paymeRoutes(paymeKey, store, shop, runs), transactional: true };
        },
      }),
    ],
    controllers: [PaymeController],
  })
  class AppModule {}

  const adapter = options.platform === 'fastify' ? new FastifyAdapter() : new ExpressAdapter();
  // rawBody: Nest keeps the exact request bytes on req.rawBody, for the preset's fingerprint.
  const app = await NestFactory.create(AppModule, adapter, { rawBody: true, logger: false });
  await app.init();
  if (options.platform === 'fastify') await (adapter as FastifyAdapter).getInstance().ready();
  const shop = app.get(Shop);
  return {
    app,
    shop,
    runs,
    async close() {
      await app.close();
      close();
    },
  };
}
