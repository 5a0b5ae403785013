/**
 * @module docs/adapters/nestjs.md and packages/nestjs/README.md: the module and the decorator,
 * the Fastify platform, forRootAsync with the transaction, the inbox endpoint as Nest middleware.
 * test/nestjs.test.ts drives each over HTTP.
 */
// #region minimal
import 'reflect-metadata';
import { Body, Controller, HttpCode, Module, Post } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { InMemoryStore, type RequestIdempotency } from '@webhook-idempotency/core';
import { Idempotent, IdempotencyContext, IdempotencyModule } from '@webhook-idempotency/nestjs';
// #endregion minimal
// #region fastify
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
// #endregion fastify
// #region async
import { Inject } from '@nestjs/common';
import { Schema, SqlStore } from '@webhook-idempotency/sql';
import knex, { type Knex } from 'knex';
import { z } from 'zod';
// #endregion async
// #region inbox
import { type MiddlewareConsumer, type NestModule, RequestMethod } from '@nestjs/common';
import * as providers from '@webhook-idempotency/providers';
import { inbox } from '@webhook-idempotency/express';
import { SqlInbox } from '@webhook-idempotency/sql';
import Database from 'better-sqlite3';
// #endregion inbox

// #region minimal

@Controller('webhooks')
export class GithubController {
  @Post('github')
  @HttpCode(200)
  @Idempotent({
    provider: 'github',
    key: (req) => req.headers['x-github-delivery'] as string | undefined,
    keyDescription: 'X-GitHub-Delivery header',
  })
  receive(@Body() event: { action?: string }, @IdempotencyContext() run: RequestIdempotency) {
    // … change your data once per delivery (event is the parsed JSON) …
    return { received: event.action, attempts: run.attempts };
  }
}

@Module({
  // One process only: use SqlStore from @webhook-idempotency/sql in production.
  imports: [IdempotencyModule.forRoot({ store: new InMemoryStore() })],
  controllers: [GithubController],
})
export class AppModule {}
// #endregion minimal

/** Not run by the tests (they create the app with `init()` and supertest). */
export async function bootstrap() {
  // #region minimal

  // rawBody: true keeps the exact request bytes on req.rawBody, for signatures and fingerprints.
  const app = await NestFactory.create(AppModule, { rawBody: true });
  await app.listen(3000);
  // #endregion minimal
}

/** The same module on the Fastify platform. */
export async function fastifyApp() {
  // #region fastify
  const app = await NestFactory.create<NestFastifyApplication>(AppModule, new FastifyAdapter(), {
    rawBody: true,
  });
  // #endregion fastify
  return app;
}

/** Not run by the tests. */
export async function startFastify(app: NestFastifyApplication) {
  // #region fastify
  await app.listen(3000, '0.0.0.0');
  // #endregion fastify
}

/** forRootAsync: the store from a database module; the route writes through the transaction. */
export function transactionModule(filename: string) {
  // #region async
  const DATABASE = Symbol('database');
  const Payment = z.object({
    id: z.string(),
    data: z.object({ object: z.object({ id: z.string(), amount: z.number().int() }) }),
  });

  @Module({
    providers: [
      {
        provide: DATABASE,
        useFactory: async () => {
          const db = knex({
            client: 'better-sqlite3',
            connection: { filename },
            useNullAsDefault: true,
          }); // or pg, mysql2
          await Schema.createTable(db);
          return db;
        },
      },
    ],
    exports: [DATABASE],
  })
  class DatabaseModule {}

  @Controller('webhooks')
  class PaymentsController {
    constructor(@Inject(DATABASE) readonly db: Knex) {}

    @Post('payments')
    @HttpCode(200)
    @Idempotent({
      provider: 'payments',
      // A body that is not a Payment has no key: 400 naming keyDescription, nothing claimed.
      key: (req) => Payment.safeParse(req.body).data?.id,
      keyDescription: 'payment event (id, data.object.id, data.object.amount)',
    })
    async receive(
      @Body() body: unknown,
      @IdempotencyContext() run: RequestIdempotency<Knex.Transaction>,
    ) {
      const { id, amount } = Payment.parse(body).data.object; // typed; `key` checked it
      // Open until the receipt is completed: the payment row and the receipt commit together.
      await run.transaction!('payments').insert({ payment_intent: id, amount });
      return { received: true };
    }
  }

  @Module({
    imports: [
      DatabaseModule,
      IdempotencyModule.forRootAsync({
        imports: [DatabaseModule],
        inject: [DATABASE],
        useFactory: (db: Knex) => ({ store: new SqlStore(db), transactional: true }),
      }),
    ],
    controllers: [PaymentsController],
  })
  class PaymentsModule {}
  // #endregion async
  return { PaymentsModule, DATABASE };
}

/** Inbox mode on Nest's Express platform: the Express adapter's endpoint, applied as module middleware. */
export function inboxModule(filename: string): {
  WebhooksModule: new () => NestModule;
  deliveries: SqlInbox;
  db: Database.Database;
} {
  // #region inbox
  const db = new Database(filename); // a SQLite file; or a pg Pool, mysql2, knex
  const deliveries = new SqlInbox(db);

  @Module({})
  class WebhooksModule implements NestModule {
    configure(consumer: MiddlewareConsumer) {
      // Module middleware runs after Nest's body parser: with rawBody: true the bytes are on req.rawBody.
      consumer
        .apply(
          inbox({
            inbox: deliveries,
            preset: providers.stripe({ secret: process.env.STRIPE_WEBHOOK_SECRET! }),
          }),
        )
        .forRoutes({ path: 'webhooks/stripe', method: RequestMethod.POST });
    }
  }
  // NestFactory.create(WebhooksModule, { rawBody: true }); a worker processes the deliveries.
  // #endregion inbox
  return { WebhooksModule, deliveries, db };
}
