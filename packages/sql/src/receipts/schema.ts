/**
 * @module Schema: the receipts table's DDL per dialect, generated from the dialect table, never
 * hand-written per dialect; plus a quick-start `createTable` and a knex migration.
 */
import {
  ddlDialect,
  type IndexSpec,
  knexMigrationOf,
  runDdlWithIndexes,
  tableStatements,
} from '../dialects/ddl';
import { ignoredTableDdl, ignoredTableOf } from './ignored';
import { resolveTable } from './table-name';
import type { KnexInstance, SqlConnection, SqlDialect } from '../connections/types';
import type { SchemaOptions } from './types';

/**
 * The receipts table's secondary indexes: stale take-over and the status counts; purge; and the
 * listings (`ReceiptsAdmin.list`, the CLI's `list`, the dashboard), whose order (claim time, then
 * the key) this last one is, so that a page reads only its own rows.
 */
const indexesOf = (table: string): IndexSpec[] => [
  [`${table}_status_idx`, 'status, claimed_at'],
  [`${table}_finished_idx`, 'finished_at'],
  [`${table}_claimed_idx`, 'claimed_at, provider, external_id'],
];

function statements(dialect: SqlDialect, options: SchemaOptions = {}): string[] {
  const spec = ddlDialect(dialect, 'Schema.statements');
  const table = resolveTable(options.table);
  const q = spec.quote;
  const { key, response, timestamp } = spec.types;
  const lines = [
    `provider ${key} NOT NULL`,
    `external_id ${key} NOT NULL`,
    `status VARCHAR(16) NOT NULL`,
    `response ${response} NULL`,
    `fingerprint VARCHAR(64) NULL`,
    `attempts INTEGER NOT NULL`,
    `error TEXT NULL`,
    `claimed_at ${timestamp} NOT NULL`,
    `finished_at ${timestamp} NULL`,
    `CONSTRAINT ${q(`${table}_pkey`)} PRIMARY KEY (provider, external_id)`,
    `CONSTRAINT ${q(`${table}_status_check`)} CHECK (status IN ('processing', 'completed', 'failed'))`,
  ];
  // The ignored-event counts beside it: a `migrate` of an older install adds the table.
  const ignored = ignoredTableDdl(spec, table);
  return [
    ...tableStatements(spec, table, lines, indexesOf(table)),
    ...tableStatements(spec, ignoredTableOf(table), ignored.lines, ignored.indexes),
  ];
}

async function createTable(db: SqlConnection, options: SchemaOptions = {}): Promise<string[]> {
  const table = resolveTable(options.table);
  return runDdlWithIndexes(
    db,
    table,
    (dialect) => statements(dialect, { table }),
    indexesOf(table),
  );
}

/**
 * The receipts table: its DDL per dialect, a quick-start creator, a knex migration and a D1 migration. The
 * primary key `(provider, external_id)` is the unique index that arbitrates claims.
 *
 * @example
 * await Schema.createTable(db);                      // idempotent: CREATE … IF NOT EXISTS
 * Schema.statements('postgres');                     // the DDL, to paste into your migrations
 * Schema.d1Migration();                              // a `wrangler d1 migrations` file
 * // migrations/20260101_webhook_receipts.ts
 * export const { up, down } = Schema.knexMigration();
 * @see packages/sql/README.md
 */
export const Schema = {
  /**
   * The DDL for `dialect`, one statement per string, each idempotent (`IF NOT EXISTS`).
   *
   * @throws {ConfigError} for an invalid `table` or an unknown `dialect`.
   */
  statements,

  /**
   * Creates the table and its indexes on `db` (any connection `SqlStore` accepts) unless they
   * exist: on a table an older version created, it adds the indexes that table lacks. Resolves
   * with the names of the indexes it created (every one for a new table). Meant for a quick start,
   * tests and the CLI's `migrate`; production schemas belong in migrations.
   */
  createTable,

  /**
   * The text of a Cloudflare D1 migration file (the SQLite DDL, each statement `;`-terminated):
   * what goes into the file `wrangler d1 migrations create <binding> webhook_receipts` made, before
   * `wrangler d1 migrations apply`. Each statement is idempotent (`IF NOT EXISTS`).
   *
   * @example
   * writeFileSync('migrations/0001_webhook_receipts.sql', Schema.d1Migration());
   * @throws {ConfigError} for an invalid `table`.
   */
  d1Migration(options: SchemaOptions = {}): string {
    return `${statements('sqlite', options).join(';\n\n')};\n`;
  },

  /**
   * `{ up, down }` for a knex migration file: `up` runs {@link Schema.statements} for the knex
   * instance's dialect, `down` drops the table and its ignored-event counts table.
   */
  knexMigration(options: SchemaOptions = {}): {
    up(knex: KnexInstance): Promise<void>;
    down(knex: KnexInstance): Promise<void>;
  } {
    const table = resolveTable(options.table);
    return knexMigrationOf(
      [table, ignoredTableOf(table)],
      async (knex) => void (await createTable(knex, { table })),
    );
  },
} as const;
