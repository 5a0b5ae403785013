/**
 * @module What the receipts table (schema.ts) and the inbox table (inbox-schema.ts) share: one
 * table's idempotent DDL from its column lines and indexes, running DDL on a connection, and a
 * knex migration of it.
 */
import { ConfigError } from '@webhook-idempotency/core';
import { createExecutor } from '../connections/detect';
import { DEFAULT_ACQUIRE_TIMEOUT_MS } from '../connections/constants';
import { type DialectSpec, dialects } from '.';
import type { KnexInstance, SqlConnection, SqlDialect } from '../connections/types';

/** An index: its name and its column list. */
/** An index: its name, its columns, and for a partial index (PostgreSQL, SQLite) the rows it holds. */
export type IndexSpec = readonly [name: string, columns: string, where?: string];

/**
 * The dialect table's row a schema's `statements(dialect)` writes its DDL from; a `ConfigError`
 * naming `dialect` when it is not one of them (`caller` says whose, for the message).
 */
export function ddlDialect(dialect: SqlDialect, caller: string): DialectSpec {
  const spec = dialects[dialect];
  if (!spec)
    throw new ConfigError(
      'dialect',
      `${caller} takes 'postgres', 'mysql' or 'sqlite', got ${String(dialect)}`,
    );
  return spec;
}

/**
 * `CREATE TABLE IF NOT EXISTS` for `table` (validated, unquoted) with `lines` (columns and
 * constraints), then its indexes: inline where the dialect declares them in the table (MySQL),
 * else as `CREATE INDEX IF NOT EXISTS`.
 */
export function tableStatements(
  spec: DialectSpec,
  table: string,
  lines: readonly string[],
  indexes: readonly IndexSpec[],
): string[] {
  const q = spec.quote;
  const t = q(table);
  const body = spec.inlineIndexes
    ? [...lines, ...indexes.map(([name, columns]) => `INDEX ${q(name)} (${columns})`)]
    : lines;
  return [
    `CREATE TABLE IF NOT EXISTS ${t} (\n  ${body.join(',\n  ')}\n)${spec.tableOptions}`,
    ...(spec.inlineIndexes
      ? []
      : indexes.map(
          ([name, columns, where]) =>
            `CREATE INDEX IF NOT EXISTS ${q(name)} ON ${t} (${columns})${where ? ` WHERE ${where}` : ''}`,
        )),
  ];
}

/** Runs the DDL `statements` gives for `db`'s dialect, in order. */
export async function runDdl(
  db: SqlConnection,
  statements: (dialect: SqlDialect) => readonly string[],
): Promise<void> {
  // DDL runs once: nothing to gain from preparing it, and not every server prepares every DDL statement.
  const executor = createExecutor(db, DEFAULT_ACQUIRE_TIMEOUT_MS, false);
  for (const statement of statements(executor.dialect)) await executor.query(statement, []);
}

/** MySQL's error for an index name a table has already (a concurrent migration added it first). */
const DUPLICATE_INDEX = new Set<unknown>(['ER_DUP_KEYNAME', 1061]);

/**
 * Runs the DDL `statements` gives for `db`'s dialect, then adds each of `indexes` that the table
 * still lacks: a table an older version created has none of the indexes added since, and MySQL
 * declares indexes inside `CREATE TABLE IF NOT EXISTS`, which skips an existing table whole.
 * Resolves with the names of the indexes that were not there before (all of them for a new table).
 */
export async function runDdlWithIndexes(
  db: SqlConnection,
  table: string,
  statements: (dialect: SqlDialect) => readonly string[],
  indexes: readonly IndexSpec[],
): Promise<string[]> {
  const executor = createExecutor(db, DEFAULT_ACQUIRE_TIMEOUT_MS, false);
  const spec = dialects[executor.dialect];
  const present = async (name: string) =>
    (await executor.query(spec.indexExists, [table, name])).rows.length > 0;
  const missing: string[] = [];
  for (const [name] of indexes) if (!(await present(name))) missing.push(name);
  for (const statement of statements(executor.dialect)) await executor.query(statement, []);
  for (const [name, columns] of indexes) {
    if (!missing.includes(name) || (await present(name))) continue;
    try {
      await executor.query(
        `CREATE INDEX ${spec.quote(name)} ON ${spec.quote(table)} (${columns})`,
        [],
      );
    } catch (error) {
      const { code, errno } = (error ?? {}) as { code?: unknown; errno?: unknown };
      if (!DUPLICATE_INDEX.has(code) && !DUPLICATE_INDEX.has(errno)) throw error;
    }
  }
  return missing;
}

/** `{ up, down }` for a knex migration: `up` creates the tables, `down` drops `tables`. */
export function knexMigrationOf(
  tables: string | readonly string[],
  up: (knex: KnexInstance) => Promise<void>,
): { up(knex: KnexInstance): Promise<void>; down(knex: KnexInstance): Promise<void> } {
  return {
    up,
    async down(knex) {
      const executor = createExecutor(knex, DEFAULT_ACQUIRE_TIMEOUT_MS, false);
      const { quote } = dialects[executor.dialect];
      for (const table of typeof tables === 'string' ? [tables] : tables)
        await executor.query(`DROP TABLE IF EXISTS ${quote(table)}`, []);
    },
  };
}
