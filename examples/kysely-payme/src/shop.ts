/**
 * @module The shop: its tables as Kysely sees them, and what each Payme method does to them.
 * Nothing here knows about idempotency; it runs on whatever Kysely handle it is given: the
 * guard's transaction for the writing methods' routes, the app's instance for the checks that
 * pass through.
 */
import { type Kysely, sql } from 'kysely';

/** The database, as Kysely users declare it. */
export interface ShopDatabase {
  orders: { id: number; amount: number; status: string };
  payme_transactions: {
    id: string;
    order_id: number;
    amount: number;
    state: number;
    create_time: number;
    perform_time: number;
  };
  payments_ledger: { order_id: number; amount: number; payme_id: string };
}

/** A Payme JSON-RPC error: a definite answer, sent with HTTP 200 (and replayed on a retry). */
export class PaymeError extends Error {
  constructor(
    readonly rpcCode: number,
    message: string,
  ) {
    super(message);
  }

  toJSON() {
    return {
      code: this.rpcCode,
      message: { ru: this.message, uz: this.message, en: this.message },
    };
  }
}

/** Payme's params as the shop reads them: any fields, each checked where it is read. */
export type Params = Readonly<Record<string, unknown>>;
/** `params.account.order_id`, read without trusting its shape: NaN when it is not there. */
function orderIdOf({ account }: Params): number {
  const found = typeof account === 'object' && account !== null && 'order_id' in account;
  return Number(found ? account.order_id : undefined);
}

/** Creates the shop's tables (a real app keeps them in Kysely migrations). */
export async function createTables(db: Kysely<ShopDatabase>): Promise<void> {
  await db.schema
    .createTable('orders')
    .ifNotExists()
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addColumn('status', 'varchar(16)', (c) => c.notNull().defaultTo('new'))
    .execute();
  await db.schema
    .createTable('payme_transactions')
    .ifNotExists()
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('order_id', 'integer', (c) => c.notNull())
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addColumn('state', 'integer', (c) => c.notNull())
    .addColumn('create_time', 'bigint', (c) => c.notNull())
    .addColumn('perform_time', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createTable('payments_ledger')
    .ifNotExists()
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('order_id', 'integer', (c) => c.notNull())
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addColumn('payme_id', 'varchar(64)', (c) => c.notNull())
    .execute();
}

/** CreateTransaction: a transaction for a payable order. Throws {@link PaymeError} for a business error. */
export async function createTransaction(db: Kysely<ShopDatabase>, params: Params, now: number) {
  const order = await payableOrder(db, orderIdOf(params), Number(params.amount));
  await db
    .insertInto('payme_transactions')
    .values({
      id: String(params.id),
      order_id: order.id,
      amount: order.amount,
      state: 1,
      create_time: now,
      perform_time: 0,
    })
    .execute();
  return { create_time: now, transaction: String(params.id), state: 1 };
}

/** PerformTransaction: the order paid and the payment booked (performed already: its answer again). */
export async function performTransaction(db: Kysely<ShopDatabase>, params: Params, now: number) {
  const tx = await transaction(db, String(params.id));
  if (tx.state !== 1)
    return { transaction: tx.id, perform_time: Number(tx.perform_time), state: tx.state };
  await db
    .updateTable('payme_transactions')
    .set({ state: 2, perform_time: now })
    .where('id', '=', tx.id)
    .execute();
  await db.updateTable('orders').set({ status: 'paid' }).where('id', '=', tx.order_id).execute();
  await db
    .insertInto('payments_ledger')
    .values({ order_id: tx.order_id, amount: tx.amount, payme_id: tx.id })
    .execute();
  return { transaction: tx.id, perform_time: now, state: 2 };
}

/** The error of a method the shop does not implement: JSON-RPC -32601. */
export const methodNotFound = (method: unknown) =>
  new PaymeError(-32601, `Method not found: ${String(method)}`);

/**
 * Answers a read-only check (the preset passes them through unguarded, so they report the current
 * state every time), or a call the preset cannot key, on `db`. Throws {@link PaymeError}.
 */
export async function answerQuery(
  db: Kysely<ShopDatabase>,
  method: unknown,
  params: Params,
): Promise<unknown> {
  switch (method) {
    case 'CheckPerformTransaction':
      await payableOrder(db, orderIdOf(params), Number(params.amount));
      return { allow: true };
    case 'CheckTransaction': {
      const tx = await transaction(db, String(params.id));
      return {
        create_time: Number(tx.create_time),
        perform_time: Number(tx.perform_time),
        cancel_time: 0,
        transaction: tx.id,
        state: tx.state,
        reason: null,
      };
    }
    case 'CreateTransaction':
    case 'PerformTransaction':
      // A writing method reaches here only without the params.id the preset keys it on.
      throw new PaymeError(-32600, 'Invalid request: params.id is required');
    default:
      throw methodNotFound(method);
  }
}

async function payableOrder(db: Kysely<ShopDatabase>, id: number, amount: number) {
  const order = await db.selectFrom('orders').selectAll().where('id', '=', id).executeTakeFirst();
  if (order?.status !== 'new') throw new PaymeError(-31050, 'Order not found');
  if (Number(order.amount) !== amount) throw new PaymeError(-31001, 'Wrong amount');
  return { id: order.id, amount: Number(order.amount) };
}

async function transaction(db: Kysely<ShopDatabase>, id: string) {
  const row = await db
    .selectFrom('payme_transactions')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) throw new PaymeError(-31003, 'Transaction not found');
  return { ...row, amount: Number(row.amount) };
}

/** How many rows `table` holds (for the tests and the operator). */
export async function count(db: Kysely<ShopDatabase>, table: keyof ShopDatabase): Promise<number> {
  const row = await db
    .selectFrom(table)
    .select(sql<number>`count(*)`.as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
