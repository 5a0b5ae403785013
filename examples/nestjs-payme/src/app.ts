/**
 * @module The Payme endpoint on NestJS: `IdempotencyModule.forRootAsync` takes the store from the
 * database module, `@Idempotent({ preset })` guards the controller method, and the guarded Payme
 * methods write through the transaction `@IdempotencyContext()` hands them.
 */
import 'reflect-metadata';
import {
  type ArgumentsHost,
  Body,
  Catch,
  Controller,
  type ExceptionFilter,
  HttpCode,
  Inject,
  type INestApplication,
  Module,
  Post,
  UseFilters,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { type RequestIdempotency } from '@webhook-idempotency/core';
import * as providers from '@webhook-idempotency/providers';
import type { PaymeMinimalCall } from '@webhook-idempotency/providers';
import { Idempotent, IdempotencyContext, IdempotencyModule } from '@webhook-idempotency/nestjs';
import { Schema, SqlStore } from '@webhook-idempotency/sql';
import Database from 'better-sqlite3';
import { PaymeError, Shop } from './shop';

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
const RUNS = Symbol('runs');
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

@Controller()
class PaymeController {
  constructor(
    private readonly shop: Shop,
    @Inject(RUNS) private readonly runs: Map<string, number>,
  ) {}

  @Post('payme')
  @HttpCode(200)
  @UseFilters(SystemErrorFilter)
  @Idempotent() // the Payme preset comes from the module options, built with the key from DI
  perform(
    @Body() call: PaymeMinimalCall, // the preset's own call type: Payme publishes no types
    @IdempotencyContext() run: RequestIdempotency<Database.Database> | undefined,
  ) {
    const { method, params = {}, id } = call;
    // Guarded methods write through the guard's transaction: their rows commit with the receipt.
    // Pass-through methods (CheckPerformTransaction, CheckTransaction) read on the shop's connection.
    if (run) {
      const runKey = `${method}:${String(params.id)}`;
      this.runs.set(runKey, (this.runs.get(runKey) ?? 0) + 1);
    }
    try {
      const result = this.shop.handle(run?.transaction ?? this.shop.db, method, params, Date.now());
      return { result, id };
    } catch (error) {
      // A business error is a definite answer: HTTP 200 with the Payme code, stored and replayed.
      if (error instanceof PaymeError) return { error: error.toJSON(), id };
      throw error;
    }
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
        inject: [STORE_DB, PAYME_KEY],
        useFactory: async (storeDb: Database.Database, paymeKey: string) => {
          await Schema.createTable(storeDb);
          return {
            store: new SqlStore(storeDb),
            preset: providers.payme({ password: paymeKey }),
            transactional: true,
          };
        },
      }),
    ],
    providers: [{ provide: RUNS, useValue: runs }],
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
