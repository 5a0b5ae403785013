/**
 * @module InboxSchema: the inbox deliveries table's DDL per dialect, generated from the dialect
 * table like `Schema`, plus a quick-start `createTable` and a knex migration.
 */
import {
  ddlDialect,
  type IndexSpec,
  knexMigrationOf,
  runDdl,
  tableStatements,
} from '../dialects/ddl';
import { resolveTable } from '../receipts/table-name';
import type { InboxSchemaOptions as SchemaOptions } from './types';
import type { KnexInstance, SqlConnection, SqlDialect } from '../connections/types';

/** Table `SqlInbox` and `InboxSchema` use when no `table` option is given. */
export const DEFAULT_INBOX_TABLE = 'webhook_inbox';

/** The inbox table name: the option, validated, or `webhook_inbox`. */
export function resolveInboxTable(table: unknown): string {
  return table === undefined ? DEFAULT_INBOX_TABLE : resolveTable(table);
}

function statements(dialect: SqlDialect, options: SchemaOptions = {}): string[] {
  return inboxTableStatements(dialect, resolveInboxTable(options.table), 'InboxSchema.statements');
}

/**
 * The DDL of a table of the inbox's shape named `table` (validated) for `dialect`: the inbox's,
 * and the outbox's (`OutboxSchema`). `caller` names the helper in the error for an unknown dialect.
 */
export function inboxTableStatements(dialect: SqlDialect, table: string, caller: string): string[] {
  const spec = ddlDialect(dialect, caller);
  const q = spec.quote;
  const { key, timestamp } = spec.types;
  const indexes: IndexSpec[] = [
    [`${table}_due_idx`, 'status, available_at'],
    [`${table}_order_idx`, 'provider, ordering_key, id'],
    [`${table}_finished_idx`, 'finished_at, id'],
    // The claim's path to the unfinished deliveries in id order (see InboxFragments.unfinished).
    ...(spec.inbox.unfinished.partialIndex
      ? [[`${table}_open_idx`, 'id', 'finished_at IS NULL'] as const]
      : []),
  ];
  const lines = [
    spec.inbox.idColumn,
    `provider ${key} NOT NULL`,
    `external_id ${key} NOT NULL`,
    `ordering_key ${key} NULL`,
    `status VARCHAR(16) NOT NULL`,
    `attempts INTEGER NOT NULL`,
    `failures INTEGER NOT NULL`,
    `headers ${spec.inbox.text} NOT NULL`,
    `body ${spec.inbox.bytes} NOT NULL`,
    `received_at ${timestamp} NOT NULL`,
    `available_at ${timestamp} NOT NULL`,
    `finished_at ${timestamp} NULL`,
    `last_error TEXT NULL`,
    `CONSTRAINT ${q(`${table}_key`)} UNIQUE (provider, external_id)`,
    `CONSTRAINT ${q(`${table}_status_check`)} CHECK (status IN ('pending', 'processing', 'done', 'dead'))`,
  ];
  return tableStatements(spec, table, lines, indexes);
}

async function createTable(db: SqlConnection, options: SchemaOptions = {}): Promise<void> {
  await runDdl(db, (dialect) => statements(dialect, options));
}

/**
 * The inbox deliveries table (`webhook_inbox` by default): its DDL per dialect, a quick-start
 * creator and a knex migration. `UNIQUE (provider, external_id)` stores each delivery once;
 * `id` orders them as they were received.
 *
 * @example
 * await InboxSchema.createTable(db);               // idempotent: CREATE … IF NOT EXISTS
 * InboxSchema.statements('postgres');              // the DDL, to paste into your migrations
 * export const { up, down } = InboxSchema.knexMigration();
 * @see docs/inbox.md
 */
export const InboxSchema = {
  /**
   * The DDL for `dialect`, one statement per string, each idempotent (`IF NOT EXISTS`).
   *
   * @throws {ConfigError} for an invalid `table` or an unknown `dialect`.
   */
  statements,

  /** Creates the table and its indexes on `db` (any connection `SqlInbox` accepts) unless they exist. */
  createTable,

  /** `{ up, down }` for a knex migration file: `up` runs {@link InboxSchema.statements}, `down` drops the table. */
  knexMigration(options: SchemaOptions = {}): {
    up(knex: KnexInstance): Promise<void>;
    down(knex: KnexInstance): Promise<void>;
  } {
    const table = resolveInboxTable(options.table);
    return knexMigrationOf(table, (knex) => createTable(knex, { table }));
  },
} as const;
