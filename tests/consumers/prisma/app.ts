// An ESM TypeScript Express app on Prisma 7 (adapter-better-sqlite3): idempotent() in
// transactional mode + SqlStore over fromPrisma(prisma); the order is created through the
// interactive-transaction client the handler is given, typed from the store without a cast.
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import express from 'express';
import { IdempotencyGuard, RequestKey, requireTransaction } from '@webhook-idempotency/core';
import { idempotent } from '@webhook-idempotency/express';
import { Schema, SqlStore } from '@webhook-idempotency/sql';
import { fromPrisma } from '@webhook-idempotency/sql/prisma';
import { exercise } from '../deliveries.cjs';
import { PrismaClient } from './generated/client.js';

const file = join(mkdtempSync(join(tmpdir(), 'wi-consumer-')), 'shop.sqlite');
const prisma = new PrismaClient({ adapter: new PrismaBetterSqlite3({ url: `file:${file}` }) });
const connection = fromPrisma(prisma);

/** The guard's `transaction` is Prisma's transaction client: its models are typed. */
export async function typedUse(): Promise<void> {
  const guard = new IdempotencyGuard(new SqlStore(connection), { transactional: true });
  await guard.run(new RequestKey('stripe', 'evt_typed'), async ({ transaction }) => {
    await transaction?.order.create({ data: { id: 'o_typed' } });
    // @ts-expect-error the model is typed: an Order's id is a string
    await transaction?.order.create({ data: { id: 1 } });
    // @ts-expect-error the client is typed: there is no `refund` model
    await transaction?.refund.create({ data: {} });
  });
}

async function main(): Promise<void> {
  await prisma.$executeRawUnsafe('CREATE TABLE orders (id TEXT PRIMARY KEY)');
  await Schema.createTable(connection);
  let count = 0;
  const store = new SqlStore(connection);
  const app = express();
  app.post(
    '/webhooks',
    express.raw({ type: '*/*' }),
    idempotent({
      store,
      provider: 'acme',
      key: (req) => req.get('x-delivery-id'),
      transactional: true,
    }),
    async (req, res) => {
      const tx = requireTransaction(req.idempotency, store);
      await tx.order.create({ data: { id: String(req.get('x-delivery-id')) } });
      // @ts-expect-error typed from the store, not `any`: there is no `refund` model
      void tx.refund;
      res.status(201).json({ order: ++count, bytes: (req.body as Buffer).length });
    },
  );
  await exercise(createServer(app), () => count);
  await prisma.$disconnect();
}

await main();
