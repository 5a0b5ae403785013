/**
 * @module The example's business side: orders and Payme transactions in SQLite, as a Nest
 * provider. Nothing here knows about idempotency: the guard around the controller makes every
 * delivery count once.
 */
import type Database from 'better-sqlite3';

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

interface TransactionRow {
  id: string;
  order_id: number;
  amount: number;
  state: number;
  create_time: number;
  perform_time: number;
}

type Params = Record<string, unknown>;

/** `params.account.order_id`, read without trusting its shape: NaN when it is not there. */
function orderIdOf({ account }: Params): number {
  const found = typeof account === 'object' && account !== null && 'order_id' in account;
  return Number(found ? account.order_id : undefined);
}

/** The error of a method the shop does not implement: JSON-RPC -32601. */
export const methodNotFound = (method: unknown) =>
  new PaymeError(-32601, `Method not found: ${String(method)}`);

/** The shop: its tables, and what each Payme method does to them. */
export class Shop {
  constructor(readonly db: Database.Database) {
    db.exec(`
      CREATE TABLE IF NOT EXISTS orders (
        id INTEGER PRIMARY KEY, amount INTEGER NOT NULL, status TEXT NOT NULL DEFAULT 'new');
      CREATE TABLE IF NOT EXISTS payme_transactions (
        id TEXT PRIMARY KEY, order_id INTEGER NOT NULL, amount INTEGER NOT NULL,
        state INTEGER NOT NULL, create_time INTEGER NOT NULL, perform_time INTEGER NOT NULL DEFAULT 0);
      CREATE TABLE IF NOT EXISTS payments_ledger (
        id INTEGER PRIMARY KEY, order_id INTEGER NOT NULL, amount INTEGER NOT NULL, payme_id TEXT NOT NULL);
    `);
  }

  /** Adds an order to pay for. */
  createOrder(id: number, amount: number): void {
    this.db.prepare('INSERT INTO orders (id, amount) VALUES (?, ?)').run(id, amount);
  }

  /** CreateTransaction on `db` (the guard's transaction). Throws {@link PaymeError} for a business error. */
  createTransaction(db: Database.Database, params: Params, now: number) {
    const order = this.payableOrder(db, orderIdOf(params), Number(params.amount));
    db.prepare(
      'INSERT INTO payme_transactions (id, order_id, amount, state, create_time) VALUES (?, ?, ?, 1, ?)',
    ).run(String(params.id), order.id, order.amount, now);
    return { create_time: now, transaction: String(params.id), state: 1 };
  }

  /** PerformTransaction on `db` (the guard's transaction): the order paid, the payment booked. */
  performTransaction(db: Database.Database, params: Params, now: number) {
    const tx = this.transaction(db, String(params.id));
    if (tx.state !== 1)
      return { transaction: tx.id, perform_time: tx.perform_time, state: tx.state };
    db.prepare('UPDATE payme_transactions SET state = 2, perform_time = ? WHERE id = ?').run(
      now,
      tx.id,
    );
    db.prepare("UPDATE orders SET status = 'paid' WHERE id = ?").run(tx.order_id);
    db.prepare('INSERT INTO payments_ledger (order_id, amount, payme_id) VALUES (?, ?, ?)').run(
      tx.order_id,
      tx.amount,
      tx.id,
    );
    return { transaction: tx.id, perform_time: now, state: 2 };
  }

  /**
   * Answers a read-only query (the preset passes them through unguarded, so they report the
   * current state every time), or a call the preset cannot key, on the shop's own connection.
   * Throws {@link PaymeError}.
   */
  query(method: unknown, params: Params): unknown {
    switch (method) {
      case 'CheckPerformTransaction':
        this.payableOrder(this.db, orderIdOf(params), Number(params.amount));
        return { allow: true };
      case 'CheckTransaction': {
        const tx = this.transaction(this.db, String(params.id));
        return {
          create_time: tx.create_time,
          perform_time: tx.perform_time,
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

  private payableOrder(db: Database.Database, id: number, amount: number) {
    const order = db.prepare('SELECT id, amount, status FROM orders WHERE id = ?').get(id) as
      | { id: number; amount: number; status: string }
      | undefined;
    if (order?.status !== 'new') throw new PaymeError(-31050, 'Order not found');
    if (order.amount !== amount) throw new PaymeError(-31001, 'Wrong amount');
    return order;
  }

  private transaction(db: Database.Database, id: string): TransactionRow {
    const row = db.prepare('SELECT * FROM payme_transactions WHERE id = ?').get(id) as
      | TransactionRow
      | undefined;
    if (!row) throw new PaymeError(-31003, 'Transaction not found');
    return row;
  }
}
