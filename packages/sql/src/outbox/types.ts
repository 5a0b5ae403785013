/** @module Public option types of `SqlOutbox` and `OutboxSchema`. */
import type { Store } from '@webhook-idempotency/core';
import type { SqlInboxOptions } from '../inbox/types';

/**
 * Options of `new SqlOutbox(db, options)`: `receipts` is required; the others are the inbox's
 * lease options, for the dispatcher's lease calls.
 * @typeParam Tx the transaction handle of the `receipts` store.
 */
export interface SqlOutboxOptions<Tx>
  extends Pick<
    SqlInboxOptions<Tx>,
    'acquireTimeoutMs' | 'leaseTimeoutMs' | 'preparedStatements' | 'skipLocked'
  > {
  /**
   * The receipts store the handlers run through, built on this very connection (`db`, or the ORM
   * connection of the same object): `new SqlOutbox(db, { receipts: new SqlStore(db) })`. Messages
   * are recorded inside its transactions, so they commit or roll back with the handler's writes.
   * @throws {ConfigError} naming `receipts` when it is missing or not a SQL store on this connection.
   */
  receipts: Store<Tx>;
  /**
   * The outbox table: letters, digits and `_`, starting with a letter or `_`, at most 48
   * characters. Defaults to `'webhook_outbox'`.
   */
  table?: string;
}

/** Options of the `OutboxSchema` helpers. */
export interface OutboxSchemaOptions {
  /** The outbox table, validated like {@link SqlOutboxOptions.table}. Defaults to `'webhook_outbox'`. */
  table?: string;
}
