/**
 * @module OutboxSchema: the outbox table's DDL, which is the inbox table's (`InboxSchema`) on a
 * table of its own, `webhook_outbox` by default.
 */
import type { SqlConnection, SqlDialect } from '../connections/types';
import { InboxSchema, inboxTableStatements, resolveInboxTable } from '../inbox/schema';
import type { OutboxSchemaOptions } from './types';

/** Table `SqlOutbox` and `OutboxSchema` use when no `table` option is given. */
export const DEFAULT_OUTBOX_TABLE = 'webhook_outbox';

/** The outbox table name: the option, validated as the inbox's, or `webhook_outbox`. */
export function resolveOutboxTable(table: unknown): string {
  return table === undefined ? DEFAULT_OUTBOX_TABLE : resolveInboxTable(table);
}

/**
 * The transactional outbox's table (`webhook_outbox` by default): the inbox table's columns and
 * indexes, one row per message (see `SqlOutbox` for what each column holds). `UNIQUE (provider,
 * external_id)` is the sender and the effect key: a message recorded twice is one row.
 *
 * @example
 * await OutboxSchema.createTable(db);          // idempotent: CREATE … IF NOT EXISTS
 * OutboxSchema.statements('postgres');         // the DDL, to paste into your migrations
 * @see docs/outbox.md
 */
export const OutboxSchema = {
  /**
   * The DDL for `dialect`, one statement per string, each idempotent (`IF NOT EXISTS`): the
   * statements `InboxSchema.statements` gives for the outbox's table.
   *
   * @throws {ConfigError} for an invalid `table` or an unknown `dialect`.
   */
  statements(dialect: SqlDialect, options: OutboxSchemaOptions = {}): string[] {
    return inboxTableStatements(
      dialect,
      resolveOutboxTable(options.table),
      'OutboxSchema.statements',
    );
  },

  /** Creates the table and its indexes on `db` (any connection `SqlOutbox` accepts) unless they exist. */
  async createTable(db: SqlConnection, options: OutboxSchemaOptions = {}): Promise<void> {
    await InboxSchema.createTable(db, { table: resolveOutboxTable(options.table) });
  },
} as const;
