/** @module Public option types of `SqlInbox` and `InboxSchema`. */
import type { Store } from '@webhook-idempotency/core';

/**
 * Options of `new SqlInbox(db, options)`. Every one is optional.
 * @typeParam Tx the transaction handle of the `receipts` store, when one is given.
 */
export interface SqlInboxOptions<Tx = never> {
  /**
   * The receipts store the worker's handlers run through, built on this very connection (`db`, or
   * the ORM connection of the same object): `new SqlInbox(db, { receipts: new SqlStore(db) })`.
   * The inbox then writes in that store's transactions (`completeIn`, `enqueueIn`), so a handler's
   * writes, its receipt and its delivery's `done` commit together, and the worker runs first
   * deliveries in groups. Without it, the inbox is on its own: a worker marks each delivery done after its
   * receipt commits (an inbox and a store on one connection are still found out for one more
   * minor version, deprecated).
   * @throws {ConfigError} naming `receipts` when it is not a SQL store on this connection.
   */
  receipts?: Store<Tx>;
  /**
   * The deliveries table: letters, digits and `_`, starting with a letter or `_`, at most 48
   * characters. Defaults to `'webhook_inbox'`.
   */
  table?: string;
  /** As `SqlStoreOptions.acquireTimeoutMs`: the longest wait for a pooled connection. Defaults to 10 000. */
  acquireTimeoutMs?: number;
  /**
   * The longest a lease call (`lease`, `leaseRefs`) may wait on a lock or run, in milliseconds:
   * one that meets a table lock (a migration's `LOCK TABLE`/`ALTER TABLE`) ends with an error
   * after it (the worker reports `store-error` and tries again later) instead of blocking the
   * worker and its `stop()`. PostgreSQL: `lock_timeout` and `statement_timeout` for its
   * transaction; MySQL/MariaDB: `lock_wait_timeout` and `innodb_lock_wait_timeout` (and MariaDB's
   * `max_statement_time`) for its SELECT, in whole seconds; SQLite: the connection's busy timeout.
   * The connection is also given up if it has not answered a second after it. Defaults to 5000.
   */
  leaseTimeoutMs?: number;
  /** @deprecated Use `leaseTimeoutMs` ("claim" is a receipt's word). Both given and different are refused. */
  claimTimeoutMs?: number;
  /** As `SqlStoreOptions.preparedStatements`. Defaults to `true`. */
  preparedStatements?: boolean;
  /**
   * PostgreSQL and MySQL/MariaDB: claims lock the rows they pick with `FOR UPDATE SKIP LOCKED`, so
   * concurrent workers take different deliveries without waiting for each other. MySQL before 8.0.1
   * and MariaDB before 10.6 have no `SKIP LOCKED` (the claim fails with a syntax error): set
   * `false` there, and claims use `FOR UPDATE`, waiting for each other's claim (a short
   * transaction) instead; still never one delivery twice. SQLite ignores it (a claim holds the
   * database's write lock). Defaults to `true`.
   */
  skipLocked?: boolean;
  /**
   * Group commit of the endpoint's writes: deliveries that arrive while another delivery's commit
   * is in flight are stored together in the next transaction, so a durable database flushes its
   * log once for all of them. Each `enqueue` still resolves only after the transaction holding
   * its own row has committed, so nothing is acknowledged that a crash could lose. A group the
   * database refuses is written again row by row (one bad delivery fails alone). `false` writes
   * each delivery in a transaction of its own. Defaults to `{ groupSize: 64 }`.
   */
  groupCommit?: false | GroupCommitOptions;
}

/** Options of {@link SqlInboxOptions.groupCommit}. */
export interface GroupCommitOptions {
  /** Most deliveries one transaction stores, a group (1 to 1000). Defaults to 64. */
  groupSize?: number;
  /** @deprecated Use `groupSize`. */
  maxBatch?: number;
  /**
   * Told the number of deliveries each committed transaction stored (1 for a delivery written on
   * its own), for metrics. Errors it throws are ignored.
   */
  onCommit?: (deliveries: number) => void;
}

/** Options of the `InboxSchema` helpers. */
export interface InboxSchemaOptions {
  /** The deliveries table, validated like {@link SqlInboxOptions.table}. Defaults to `'webhook_inbox'`. */
  table?: string;
}
