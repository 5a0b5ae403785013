/**
 * A transaction's handle passed where the store wants the connection: the store's statements then
 * run inside the caller's transaction, so a claim is unseen by every other connection until it
 * commits (a concurrent delivery claims too) and gone if it rolls back. `fromPrisma` took Prisma
 * 7's transaction client (it has `$transaction` too, which the check looked for), and `SqlStore`
 * and `SqlInbox` took a knex transaction; both are now a `ConfigError` naming `db`, as docs/stores.md
 * says. The other tools' transaction handles were refused already: pinned here on real servers.
 *
 * And Prisma's model calls through the handler's handle after its transaction ended (`tx.order.
 * create(…)`) surfaced Prisma's P2028 instead of `ERR_IDEMPOTENCY_TRANSACTION_CLOSED`: the model
 * delegates are gated now, as the raw queries were.
 */
import { PrismaPg } from '@prisma/adapter-pg';
import { drizzle as drizzleMysql } from 'drizzle-orm/mysql2';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import knex, { type Knex } from 'knex';
import { Kysely, PostgresDialect } from 'kysely';
import mysql from 'mysql2/promise';
import pg from 'pg';
import postgres from 'postgres';
import { IdempotencyGuard, RequestKey, TransactionClosed } from '@webhook-idempotency/core';
import { Schema, SqlInbox, SqlStore } from '../../src';
import { fromDrizzle } from '../../src/drizzle';
import { fromKysely } from '../../src/kysely';
import { fromPostgres } from '../../src/postgres-js';
import { fromPrisma } from '../../src/prisma';
import { mysqlDatabase, pgDatabase } from '../helpers/databases';
import { PrismaClient } from '../prisma/generated/postgresql/client';

const namingDb = expect.objectContaining({ name: 'ConfigError', option: 'db' });

let pgUrl = '';
let mysqlUrl = '';
beforeAll(async () => {
  pgUrl = await pgDatabase('wi_handle_as_db');
  mysqlUrl = await mysqlDatabase('wi_handle_as_db');
  const admin = new pg.Pool({ connectionString: pgUrl });
  await admin.query('CREATE TABLE orders (id VARCHAR(100) PRIMARY KEY)');
  await Schema.createTable(admin);
  await admin.end();
});

describe('Prisma', () => {
  let prisma: PrismaClient;
  beforeAll(() => {
    prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: pgUrl, max: 4 }) });
  });
  afterAll(() => prisma.$disconnect());

  it('fromPrisma refuses the client of an interactive transaction, extended or not, naming db; the clients themselves are accepted', async () => {
    const extended = prisma.$extends({});
    expect(() => fromPrisma(prisma)).not.toThrow();
    expect(() => fromPrisma(extended)).not.toThrow();
    await prisma.$transaction(async (tx) => {
      expect(() => fromPrisma(tx)).toThrow(namingDb);
    });
    await extended.$transaction(async (tx) => {
      expect(() => fromPrisma(tx)).toThrow(namingDb);
    });
  });

  it('a model call through the handle after its transaction committed or rolled back throws TransactionClosed, not P2028', async () => {
    const guard = new IdempotencyGuard(new SqlStore(fromPrisma(prisma)), { transactional: true });
    let committed: Parameters<Parameters<typeof prisma.$transaction>[0]>[0] | undefined;
    await guard.run(new RequestKey('stripe', 'evt_model_after_commit'), async ({ transaction }) => {
      committed = transaction;
      await transaction!.order.create({ data: { id: 'ord_committed' } });
      return 'ok';
    });
    const afterCommit = await Promise.resolve()
      .then(() => committed!.order.create({ data: { id: 'ord_late_commit' } }))
      .catch((error: unknown) => error);
    expect(afterCommit).toBeInstanceOf(TransactionClosed);
    expect(afterCommit).toMatchObject({
      code: 'ERR_IDEMPOTENCY_TRANSACTION_CLOSED',
      reason: 'committed',
    });

    let rolledBack: typeof committed;
    const boom = new Error('the handler failed');
    await expect(
      guard.run(new RequestKey('stripe', 'evt_model_after_rollback'), async ({ transaction }) => {
        rolledBack = transaction;
        throw boom;
      }),
    ).rejects.toBe(boom);
    const afterRollback = await Promise.resolve()
      .then(() => rolledBack!.order.findMany())
      .catch((error: unknown) => error);
    expect(afterRollback).toMatchObject({
      code: 'ERR_IDEMPOTENCY_TRANSACTION_CLOSED',
      reason: 'rolled back',
    });
    expect((await prisma.order.findMany()).map((order) => order.id)).toEqual(['ord_committed']);
  });
});

describe('knex', () => {
  let db: Knex;
  beforeAll(() => {
    db = knex({ client: 'pg', connection: pgUrl, pool: { min: 0, max: 4 } });
  });
  afterAll(() => db.destroy());

  it('SqlStore and SqlInbox refuse a knex transaction, naming db; Schema still runs in one (a knex migration does)', async () => {
    await db.transaction(async (trx) => {
      expect(() => new SqlStore(trx)).toThrow(namingDb);
      expect(() => new SqlInbox(trx)).toThrow(namingDb);
      await Schema.createTable(trx, { table: 'receipts_in_migration' });
    });
    expect(await db.schema.hasTable('receipts_in_migration')).toBe(true);
    expect(() => new SqlStore(db)).not.toThrow();
  });
});

describe('the other tools refuse their transaction handles, naming db', () => {
  it('Drizzle: the tx of node-postgres and of mysql2', async () => {
    const pool = new pg.Pool({ connectionString: pgUrl, max: 2 });
    const mysqlPool = mysql.createPool({ uri: mysqlUrl, connectionLimit: 2 });
    try {
      await drizzlePg(pool).transaction(async (tx) => {
        expect(() => fromDrizzle(tx)).toThrow(namingDb);
      });
      await drizzleMysql(mysqlPool).transaction(async (tx) => {
        expect(() => fromDrizzle(tx)).toThrow(namingDb);
      });
    } finally {
      await pool.end();
      await mysqlPool.end();
    }
  });

  it('Kysely: a Transaction on PostgreSQL', async () => {
    const kysely = new Kysely<unknown>({
      dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: pgUrl, max: 2 }) }),
    });
    try {
      await kysely.transaction().execute(async (trx) => {
        expect(() => fromKysely(trx)).toThrow(namingDb);
      });
    } finally {
      await kysely.destroy();
    }
  });

  it('postgres-js: the sql of a sql.begin, and of a reserved connection', async () => {
    const sql = postgres(pgUrl, { max: 2, onnotice: () => undefined });
    try {
      await sql.begin(async (tx) => {
        expect(() => fromPostgres(tx as never)).toThrow(namingDb);
      });
      const reserved = await sql.reserve();
      expect(() => fromPostgres(reserved as never)).toThrow(namingDb);
      reserved.release();
    } finally {
      await sql.end();
    }
  });

  it('pg and mysql2: a client checked out of the pool (one connection: the store runs concurrent transactions)', async () => {
    const pool = new pg.Pool({ connectionString: pgUrl, max: 2 });
    const mysqlPool = mysql.createPool({ uri: mysqlUrl, connectionLimit: 2 });
    const client = await pool.connect();
    const connection = await mysqlPool.getConnection();
    try {
      expect(() => new SqlStore(client as never)).toThrow(namingDb);
      expect(() => new SqlInbox(client as never)).toThrow(namingDb);
      expect(() => new SqlStore(connection as never)).toThrow(namingDb);
    } finally {
      client.release();
      connection.release();
      await pool.end();
      await mysqlPool.end();
    }
  });
});
