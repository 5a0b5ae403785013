/**
 * @module SqlOutbox: the transactional outbox's messages as a `SqlInbox` on a table of its own,
 * built with the receipts store whose transactions it records them in.
 */
import { ConfigError, type Store } from '@webhook-idempotency/core';
import type { OutboxRecordStore } from '@webhook-idempotency/core/outbox';
import type { SqlConnection } from '../connections/types';
import { SqlInbox } from '../inbox/sql-inbox';
import type { SqlInboxOptions } from '../inbox/types';
import { resolveOutboxTable } from './schema';
import type { SqlOutboxOptions } from './types';

/**
 * The transactional outbox's messages in the application's own database (`webhook_outbox`;
 * create it with `OutboxSchema.createTable(db)` or a migration from `OutboxSchema.statements`):
 * a `SqlInbox` on a table of its own, built with the receipts store the handlers run through (a
 * `SqlStore` on the same `db`). `Outbox.add` records a message inside the run's transaction
 * ({@link SqlInbox.enqueueIn}), so it commits with the handler's writes and its receipt or rolls
 * back with them. The dispatcher leases, renews, completes, retries and buries messages with the
 * inbox's lease calls; operators read and repair them with the inbox's `find`, `list`,
 * `redeliver`, `retryNow`, `purge` and `backlog`.
 *
 * A message is one row of the inbox table's shape:
 *
 * | column | for a message |
 * |---|---|
 * | `provider` | the sender's name (`'http'`, `'email'`, or one you plug): what the dispatcher leases by |
 * | `external_id` | the effect key, `context.effectKey(name)`: unique with the sender, so a name recorded twice under one receipt is one row |
 * | `headers` | JSON naming the run's receipt and the effect: `receipt-provider`, `receipt-id`, `effect-name` |
 * | `body` | the payload as UTF-8 JSON |
 * | `ordering_key` | `NULL` |
 * | `status`, `attempts`, `failures`, `available_at`, `finished_at`, `last_error` | as for a delivery: pending, processing, then done or dead |
 *
 * @example
 * const store = new SqlStore(pool);
 * const messages = new SqlOutbox(pool, { receipts: store });
 * await OutboxSchema.createTable(pool);
 * const outbox = new Outbox({ store: messages });
 * const guard = new IdempotencyGuard(store, { transactional: true });
 * await guard.run(key, async (context) => {
 *   await outbox.add(context, { name: 'refund', sender: 'http', payload: { url, json: { amount } } });
 * });
 * @typeParam Tx the transaction handle of its receipts store.
 * @see docs/outbox.md
 */
export class SqlOutbox<Tx = never> extends SqlInbox<Tx> implements OutboxRecordStore<Tx> {
  /** The receipts store whose transactions messages are recorded in. */
  declare readonly receipts: Store<Tx>;

  /**
   * @throws {ConfigError} naming `receipts` when it is missing, or not a SQL store on this very connection.
   * @throws {ConfigError} naming `db` when it is not a supported connection, or an invalid option.
   */
  constructor(db: SqlConnection, options: SqlOutboxOptions<Tx>) {
    super(db, inboxOptionsOf(options));
  }
}

/** The inbox's options for an outbox: its table, its receipts store (required), no group commit. */
function inboxOptionsOf<Tx>(options: SqlOutboxOptions<Tx>): SqlInboxOptions<Tx> {
  if (options?.receipts === undefined || options.receipts === null)
    throw new ConfigError(
      'receipts',
      'is required: the outbox records messages inside the transactions of the receipts store the handlers run through (new SqlOutbox(db, { receipts: new SqlStore(db) }))',
    );
  // Messages are recorded in the handlers' transactions (enqueueIn), never by the endpoint's
  // group commit.
  return { ...options, table: resolveOutboxTable(options.table), groupCommit: false };
}
