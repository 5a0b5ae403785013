/**
 * Drizzle on MariaDB 10.11, as docs/stores.md describes it: the store and a handler's core query
 * API (`tx.insert`, `tx.select`) work through `fromDrizzle`; Drizzle's relational queries with
 * `with` do not, whatever the store does. In its default mode Drizzle joins relations with
 * `LEFT JOIN LATERAL`, which MariaDB does not have (a syntax error); in `mode: 'planetscale'` it
 * uses subqueries instead, which MariaDB runs for a `many` relation but not for a `one` relation
 * (an unknown column). This pins Drizzle 0.45's behaviour: when a release fixes it, this test
 * fails and the docs change with it.
 */
import { eq, relations } from 'drizzle-orm';
import { int, mysqlTable, varchar } from 'drizzle-orm/mysql-core';
import { drizzle } from 'drizzle-orm/mysql2';
import mysql from 'mysql2/promise';
import { IdempotencyGuard, RequestKey } from '@webhook-idempotency/core';
import { Schema, SqlStore } from '../src';
import { fromDrizzle } from '../src/drizzle';
import { mysqlDatabase } from './helpers/databases';

const customers = mysqlTable('customers', {
  id: int('id').primaryKey(),
  name: varchar('name', { length: 50 }).notNull(),
});
const orders = mysqlTable('orders', {
  id: varchar('id', { length: 50 }).primaryKey(),
  customerId: int('customer_id').notNull(),
});
const customersRelations = relations(customers, ({ many }) => ({ orders: many(orders) }));
const ordersRelations = relations(orders, ({ one }) => ({
  customer: one(customers, { fields: [orders.customerId], references: [customers.id] }),
}));
const schema = { customers, orders, customersRelations, ordersRelations };

let pool: mysql.Pool;
beforeAll(async () => {
  pool = mysql.createPool({ uri: await mysqlDatabase('wi_drizzle_mariadb'), connectionLimit: 4 });
  await pool.query('CREATE TABLE customers (id INT PRIMARY KEY, name VARCHAR(50) NOT NULL)');
  await pool.query('CREATE TABLE orders (id VARCHAR(50) PRIMARY KEY, customer_id INT NOT NULL)');
  await pool.query("INSERT INTO customers (id, name) VALUES (1, 'Ada'), (2, 'Bob')");
  await pool.query("INSERT INTO orders (id, customer_id) VALUES ('ord_bob', 2)");
});
afterAll(() => pool.end());

/** What a query rejected with: the MariaDB error under Drizzle's. */
const mariadbError = (query: Promise<unknown>) =>
  query.then(
    () => undefined,
    (error: { cause?: { code?: string; sql?: string } }) => error.cause,
  );

it('through the store, a handler books with the core query API and reads the row back in its transaction', async () => {
  const db = drizzle(pool, { schema, mode: 'default' });
  const connection = fromDrizzle(db);
  await Schema.createTable(connection);
  const guard = new IdempotencyGuard(new SqlStore(connection), { transactional: true });
  const outcome = await guard.run(
    new RequestKey('stripe', 'evt_core_api'),
    async ({ transaction: tx }) => {
      await tx!.insert(orders).values({ id: 'ord_1', customerId: 1 });
      return tx!.select().from(orders).where(eq(orders.customerId, 1));
    },
  );
  expect(outcome.response).toEqual([{ id: 'ord_1', customerId: 1 }]);
  expect(await db.select().from(orders).where(eq(orders.customerId, 1))).toEqual([
    { id: 'ord_1', customerId: 1 },
  ]);
});

it('relational queries with `with`: a syntax error in the default mode (LATERAL); in planetscale mode a many relation works, a one relation does not', async () => {
  const byDefault = drizzle(pool, { schema, mode: 'default' });
  // Without `with`, a relational query is a plain SELECT, and works.
  expect(await byDefault.query.customers.findMany()).toEqual([
    { id: 1, name: 'Ada' },
    { id: 2, name: 'Bob' },
  ]);
  const lateral = await mariadbError(
    byDefault.query.customers.findMany({ with: { orders: true } }),
  );
  expect(lateral).toMatchObject({
    code: 'ER_PARSE_ERROR',
    sql: expect.stringContaining('left join lateral'),
  });
  expect(
    await mariadbError(byDefault.query.orders.findFirst({ with: { customer: true } })),
  ).toMatchObject({ code: 'ER_PARSE_ERROR' });

  const planetscale = drizzle(pool, { schema, mode: 'planetscale' });
  expect(
    await planetscale.query.customers.findMany({
      where: eq(customers.id, 2),
      with: { orders: true },
    }),
  ).toEqual([{ id: 2, name: 'Bob', orders: [{ id: 'ord_bob', customerId: 2 }] }]);
  expect(
    await mariadbError(planetscale.query.orders.findFirst({ with: { customer: true } })),
  ).toMatchObject({ code: 'ER_BAD_FIELD_ERROR' });
});
