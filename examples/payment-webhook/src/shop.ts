/**
 * @module The example's business side: a tiny shop with orders and Payme transactions in SQLite.
 * Nothing here knows about idempotency: the guard around it makes every delivery count once.
 */
import type Database from 'better-sqlite3';

/** A Payme JSON-RPC error: the code and a message in the three languages Payme shows the payer. */
export class PaymeError extends Error {
  constructor(
    readonly rpcCode: number,
    message: string,
    readonly data?: string,
  ) {
    super(message);
  }

  toJSON(): { code: number; message: { ru: string; uz: string; en: string }; data?: string } {
    const text = { ru: this.message, uz: this.message, en: this.message };
    return this.data === undefined
      ? { code: this.rpcCode, message: text }
      : { code: this.rpcCode, message: text, data: this.data };
  }
}

/** Creates the shop's tables (idempotent). */
export function createShopTables(db: Database.Database): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS orders (
      id INTEGER PRIMARY KEY,
      amount INTEGER NOT NULL,            -- tiyin
      status TEXT NOT NULL DEFAULT 'new', -- new | paid | cancelled
      paid_at INTEGER
    );
    CREATE TABLE IF NOT EXISTS payme_transactions (
      id TEXT PRIMARY KEY,                -- Payme's transaction id (params.id)
      order_id INTEGER NOT NULL REFERENCES orders(id),
      amount INTEGER NOT NULL,
      state INTEGER NOT NULL,             -- 1 created, 2 performed, -1/-2 cancelled
      create_time INTEGER NOT NULL,
      perform_time INTEGER NOT NULL DEFAULT 0,
      cancel_time INTEGER NOT NULL DEFAULT 0,
      reason INTEGER
    );
    CREATE TABLE IF NOT EXISTS payments_ledger (
      id INTEGER PRIMARY KEY,
      order_id INTEGER NOT NULL,
      amount INTEGER NOT NULL,
      payme_id TEXT NOT NULL
    );
  `);
}

/** Adds an order to pay for (demo and tests). */
export function createOrder(db: Database.Database, id: number, amount: number): void {
  db.prepare('INSERT INTO orders (id, amount) VALUES (?, ?)').run(id, amount);
}

interface TransactionRow {
  id: string;
  order_id: number;
  amount: number;
  state: number;
  create_time: number;
  perform_time: number;
  cancel_time: number;
  reason: number | null;
}

function findOrder(
  db: Database.Database,
  account: unknown,
  amount: unknown,
): { id: number; amount: number; status: string } {
  const found = typeof account === 'object' && account !== null && 'order_id' in account;
  const orderId = Number(found ? account.order_id : undefined);
  const order = db.prepare('SELECT id, amount, status FROM orders WHERE id = ?').get(orderId) as
    | { id: number; amount: number; status: string }
    | undefined;
  if (!order) throw new PaymeError(-31050, 'Order not found', 'order_id');
  if (order.amount !== amount) throw new PaymeError(-31001, 'Wrong amount');
  if (order.status !== 'new')
    throw new PaymeError(-31051, 'Order is not awaiting payment', 'order_id');
  return order;
}

function transaction(db: Database.Database, id: unknown): TransactionRow {
  const row = db.prepare('SELECT * FROM payme_transactions WHERE id = ?').get(String(id)) as
    | TransactionRow
    | undefined;
  if (!row) throw new PaymeError(-31003, 'Transaction not found');
  return row;
}

/**
 * The money-moving write: marks the order paid and books the payment in the ledger. Run inside
 * the guard's transaction, it commits together with the receipt or not at all.
 */
export function markOrderPaid(
  db: Database.Database,
  orderId: number,
  amount: number,
  paymeId: string,
  now: number,
): void {
  const changed = db
    .prepare("UPDATE orders SET status = 'paid', paid_at = ? WHERE id = ? AND status = 'new'")
    .run(now, orderId).changes;
  if (changed !== 1) throw new PaymeError(-31008, 'Order cannot be paid in its current state');
  db.prepare('INSERT INTO payments_ledger (order_id, amount, payme_id) VALUES (?, ?, ?)').run(
    orderId,
    amount,
    paymeId,
  );
}

/** Payme's params as the shop reads them: any fields, each checked where it is read. */
export type PaymeParams = Readonly<Record<string, unknown>>;

/** CreateTransaction: a transaction for a payable order (repeated with the same id: the same one). */
export function createTransaction(db: Database.Database, params: PaymeParams, now: number) {
  const existing = db
    .prepare('SELECT * FROM payme_transactions WHERE id = ?')
    .get(String(params.id)) as TransactionRow | undefined;
  if (existing) {
    if (existing.state !== 1)
      throw new PaymeError(-31008, 'Transaction is not in the created state');
    return { create_time: existing.create_time, transaction: existing.id, state: existing.state };
  }
  const order = findOrder(db, params.account, params.amount);
  db.prepare(
    'INSERT INTO payme_transactions (id, order_id, amount, state, create_time) VALUES (?, ?, ?, 1, ?)',
  ).run(String(params.id), order.id, order.amount, now);
  return { create_time: now, transaction: String(params.id), state: 1 };
}

/** PerformTransaction: the order paid and the payment booked (performed already: its answer again). */
export function performTransaction(db: Database.Database, params: PaymeParams, now: number) {
  const row = transaction(db, params.id);
  if (row.state === 2) return { transaction: row.id, perform_time: row.perform_time, state: 2 };
  if (row.state !== 1) throw new PaymeError(-31008, 'Transaction cannot be performed');
  markOrderPaid(db, row.order_id, row.amount, row.id, now);
  db.prepare('UPDATE payme_transactions SET state = 2, perform_time = ? WHERE id = ?').run(
    now,
    row.id,
  );
  return { transaction: row.id, perform_time: now, state: 2 };
}

/** CancelTransaction: the transaction cancelled (-1 before, -2 after it was performed), the order too. */
export function cancelTransaction(db: Database.Database, params: PaymeParams, now: number) {
  const row = transaction(db, params.id);
  if (row.state < 0) return { transaction: row.id, cancel_time: row.cancel_time, state: row.state };
  const state = row.state === 2 ? -2 : -1;
  db.prepare(
    'UPDATE payme_transactions SET state = ?, cancel_time = ?, reason = ? WHERE id = ?',
  ).run(state, now, Number(params.reason ?? 0), row.id);
  db.prepare("UPDATE orders SET status = 'cancelled' WHERE id = ?").run(row.order_id);
  return { transaction: row.id, cancel_time: now, state };
}

/** The error of a method the shop does not implement: JSON-RPC -32601. */
export const methodNotFound = (method: unknown) =>
  new PaymeError(-32601, `Method not found: ${String(method)}`);

/**
 * Answers a read-only method (the preset passes them through unguarded, so they report the current
 * state every time), or a call the preset cannot key, on `db`.
 */
export function answerQuery(db: Database.Database, method: unknown, params: PaymeParams): unknown {
  switch (method) {
    case 'CheckPerformTransaction': {
      findOrder(db, params.account, params.amount);
      return { allow: true };
    }
    case 'CheckTransaction': {
      const row = transaction(db, params.id);
      return {
        create_time: row.create_time,
        perform_time: row.perform_time,
        cancel_time: row.cancel_time,
        transaction: row.id,
        state: row.state,
        reason: row.reason,
      };
    }
    case 'GetStatement': {
      const rows = db
        .prepare(
          'SELECT * FROM payme_transactions WHERE create_time BETWEEN ? AND ? ORDER BY create_time',
        )
        .all(Number(params.from), Number(params.to)) as TransactionRow[];
      return {
        transactions: rows.map((r) => ({
          id: r.id,
          time: r.create_time,
          amount: r.amount,
          account: { order_id: r.order_id },
          state: r.state,
        })),
      };
    }
    case 'CreateTransaction':
    case 'PerformTransaction':
    case 'CancelTransaction':
      // A writing method reaches here only without the params.id the preset keys it on.
      throw new PaymeError(-32600, 'Invalid request: params.id is required', 'id');
    default:
      throw methodNotFound(method);
  }
}
