/**
 * SqlStore over Prisma 7 (`fromPrisma`) with its driver adapters on PostgreSQL (adapter-pg),
 * MariaDB (adapter-mariadb) and a SQLite file (adapter-better-sqlite3): the whole store contract,
 * and the guard's cases with the business write made through Prisma's interactive-transaction
 * client, typed from the store (no cast). The clients are generated from test/prisma/*.prisma by
 * scripts/prisma-generate.mjs, which jest's global setup runs (when they are out of date).
 */
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import { PrismaMariaDb } from '@prisma/adapter-mariadb';
import { PrismaPg } from '@prisma/adapter-pg';
import { IdempotencyGuard, RequestKey } from '@webhook-idempotency/core';
import { Schema, SqlStore } from '../src';
import { fromPrisma } from '../src/prisma';
import { mariadbConfigOf, mysqlDatabase, pgDatabase, sqliteFile } from './helpers/databases';
import { sqlConformance } from './helpers/conformance';
import { guardCases } from './helpers/guard-cases';
import { PrismaClient as MysqlClient } from './prisma/generated/mysql/client';
import { PrismaClient } from './prisma/generated/postgresql/client';
import { PrismaClient as SqliteClient } from './prisma/generated/sqlite/client';

describe('PostgreSQL (adapter-pg)', () => {
  const db = sqlConformance('SqlStore (Prisma, PostgreSQL)', async () => {
    const prisma = new PrismaClient({
      adapter: new PrismaPg({ connectionString: await pgDatabase('wi_prisma_pg'), max: 10 }),
    });
    return { db: fromPrisma(prisma), close: () => prisma.$disconnect() };
  });
  guardCases(db, (tx, id) => tx.order.create({ data: { id } }));
});

describe('MariaDB (adapter-mariadb)', () => {
  const db = sqlConformance('SqlStore (Prisma, MariaDB)', async () => {
    const prisma = new MysqlClient({
      adapter: new PrismaMariaDb(mariadbConfigOf(await mysqlDatabase('wi_prisma_mysql'), 10)),
    });
    return { db: fromPrisma(prisma), close: () => prisma.$disconnect() };
  });
  guardCases(db, (tx, id) => tx.order.create({ data: { id } }));
});

describe('SQLite file (adapter-better-sqlite3)', () => {
  const db = sqlConformance('SqlStore (Prisma, SQLite file)', async () => {
    const prisma = new SqliteClient({
      adapter: new PrismaBetterSqlite3({ url: `file:${sqliteFile('prisma')}` }),
    });
    return { db: fromPrisma(prisma), close: () => prisma.$disconnect() };
  });
  guardCases(db, (tx, id) => tx.order.create({ data: { id } }));
});

it('docs/stores.md: an order paid through Prisma once; the second delivery is a replay', async () => {
  const connectionString = await pgDatabase('wi_prisma_docs');
  const setup = new PrismaClient({ adapter: new PrismaPg({ connectionString }) });
  await setup.$executeRawUnsafe('CREATE TABLE orders (id VARCHAR(100) PRIMARY KEY)');
  const deliver = async () => {
    // #region prisma
    const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString }) });
    const connection = fromPrisma(prisma);
    await Schema.createTable(connection);
    const guard = new IdempotencyGuard(new SqlStore(connection), { transactional: true });

    const outcome = await guard.run(
      new RequestKey('stripe', 'evt_1'),
      async ({ transaction: tx }) => {
        // tx: Prisma's interactive-transaction client, typed from the store
        await tx!.order.create({ data: { id: 'ord_1' } });
        return { received: true };
      },
    );
    // #endregion prisma
    await prisma.$disconnect();
    return outcome.isReplay;
  };
  try {
    expect([await deliver(), await deliver()]).toEqual([false, true]);
    expect(await setup.order.count()).toBe(1);
  } finally {
    await setup.$disconnect();
  }
});

describe('fromPrisma', () => {
  it('gives the same connection for the same client, and refuses what is not a client, naming db', async () => {
    const prisma = new SqliteClient({ adapter: new PrismaBetterSqlite3({ url: 'file::memory:' }) });
    expect(fromPrisma(prisma)).toBe(fromPrisma(prisma));
    expect(new SqlStore(fromPrisma(prisma)).dialect).toBe('sqlite');
    expect(() => fromPrisma({} as never)).toThrow(
      expect.objectContaining({ name: 'ConfigError', option: 'db' }),
    );
    await prisma.$disconnect();
  });
});

it('SQLite: a claim made while a handler’s transaction is open waits for it, and is not rolled back with it', async () => {
  const prisma = new SqliteClient({
    adapter: new PrismaBetterSqlite3({ url: `file:${sqliteFile('prisma-turns')}` }),
  });
  try {
    const store = new SqlStore(fromPrisma(prisma));
    await Schema.createTable(fromPrisma(prisma));
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const open = store.withTransaction(async () => {
      await held;
      throw new Error('the handler failed: roll back');
    });
    await new Promise((resolve) => setTimeout(resolve, 50)); // the transaction is open
    const claim = store.claim({ provider: 'stripe', externalId: 'evt_other' }, {
      now: Date.now(),
      fingerprint: null,
    } as never);
    release();
    await expect(open).rejects.toThrow('roll back');
    expect(await claim).toMatchObject({ won: true });
    expect(
      await store.find({ provider: 'stripe', externalId: 'evt_other' }, { now: 0 } as never),
    ).toMatchObject({
      status: 'processing',
    });
  } finally {
    await prisma.$disconnect();
  }
});
