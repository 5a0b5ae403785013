/**
 * @module The ignored-event counts table beside the receipts table (`<table>_ignored`): one row
 * per provider, event type and hour, to which the guard's tally adds every few seconds. Its DDL and
 * its two statements, from the dialect table like every other.
 */
import { StoreError } from '@webhook-idempotency/core';
import type { IgnoredCount, IgnoredQuery, IgnoredTotal } from '@webhook-idempotency/core/adapter';
import type { StatementRunner } from '../connections/executor';
import type { IndexSpec } from '../dialects/ddl';
import { type DialectSpec, isMissingTable } from '../dialects';
import { text } from './rows';

const HOUR = 3_600_000;
/** Rows per `INSERT`: 4 parameters each, within D1's 100 bound parameters per statement. */
const ROWS_PER_STATEMENT = 25;

/** The counts table of the receipts table `table`. */
export const ignoredTableOf = (table: string): string => `${table}_ignored`;

/** Its column lines and its index, for `tableStatements`. */
export function ignoredTableDdl(
  spec: DialectSpec,
  table: string,
): { lines: string[]; indexes: IndexSpec[] } {
  const name = ignoredTableOf(table);
  const { key, timestamp } = spec.types;
  return {
    lines: [
      `provider ${key} NOT NULL`,
      `event_type ${key} NOT NULL`,
      `hour_start ${timestamp} NOT NULL`,
      'events BIGINT NOT NULL',
      `CONSTRAINT ${spec.quote(`${name}_pkey`)} PRIMARY KEY (provider, event_type, hour_start)`,
    ],
    // `<table>_ign_hour`: within MySQL's 64 characters for the longest table name (48).
    indexes: [[`${table}_ign_hour`, 'hour_start']],
  };
}

/** The counts table's statements on one connection. */
export class IgnoredTable {
  private readonly table: string;

  private readonly name: string;

  constructor(
    private readonly runner: StatementRunner,
    private readonly spec: DialectSpec,
    receipts: string,
  ) {
    this.name = ignoredTableOf(receipts);
    this.table = spec.quote(this.name);
  }

  /**
   * All of `counts` or none: one upsert (on D1, whose statements take 100 parameters, upserts of
   * 25 rows in one batch, which is one transaction), so that counts a failed write gives back to
   * the tally are never written twice. In one order (provider, type, hour) whoever calls, so that
   * concurrent writers take their rows' locks in the same order.
   */
  async add(counts: readonly IgnoredCount[]): Promise<void> {
    if (counts.length === 0) return;
    const sorted = [...counts].sort(
      (a, b) => compare(a.provider, b.provider) || compare(a.type, b.type) || a.hour - b.hour,
    );
    const { runner } = this;
    try {
      if (runner.batch && sorted.length > ROWS_PER_STATEMENT) {
        const statements = [];
        for (let start = 0; start < sorted.length; start += ROWS_PER_STATEMENT)
          statements.push(this.upsert(sorted.slice(start, start + ROWS_PER_STATEMENT)));
        await runner.batch(statements);
      } else {
        const { sql, params } = this.upsert(sorted);
        await runner.query(sql, params);
      }
    } catch (error) {
      // An install older than the table: say what creates it.
      if (!isMissingTable(this.spec, error)) throw error;
      const hint = `table ${this.name} is missing (create it with Schema.createTable or webhook-idempotency migrate)`;
      throw new StoreError(`addIgnored: ${hint}`, error);
    }
  }

  /** The upsert adding `rows` to their totals. */
  private upsert(rows: readonly IgnoredCount[]): { sql: string; params: unknown[] } {
    const { spec, table } = this;
    const sql =
      `INSERT INTO ${table} (provider, event_type, hour_start, events) VALUES ` +
      rows.map(() => `(?, ?, ${spec.atMs}, ?)`).join(', ') +
      spec.addOnConflict(table, 'provider, event_type, hour_start', 'events');
    const params = rows.flatMap(({ provider, type, hour, count }) => [
      provider,
      type,
      Math.floor(hour / HOUR) * HOUR,
      Math.floor(count),
    ]);
    return { sql, params };
  }

  /**
   * Deletes the totals of hours that ended at or before `cutoff` (ms), of `provider` when given.
   * An install older than the counts table has none to delete.
   */
  async purge(cutoff: number, provider: string | undefined): Promise<void> {
    const byProvider = provider === undefined ? '' : ' AND provider = ?';
    const sql = `DELETE FROM ${this.table} WHERE hour_start <= ${this.spec.atMs}${byProvider}`;
    const before = cutoff - HOUR;
    try {
      await this.runner.query(sql, provider === undefined ? [before] : [before, provider]);
    } catch (error) {
      if (!isMissingTable(this.spec, error)) throw error;
    }
  }

  /** The totals since `since` (rounded down to its hour), of `provider` when given, the largest first. */
  async totals({ since, provider }: IgnoredQuery): Promise<IgnoredTotal[]> {
    const { spec, table } = this;
    const byProvider = provider === undefined ? '' : ' AND provider = ?';
    const sql =
      `SELECT provider, event_type, SUM(events) AS events, MAX(${spec.toMs('hour_start')}) AS last_ms ` +
      `FROM ${table} WHERE hour_start >= ${spec.atMs}${byProvider} ` +
      'GROUP BY provider, event_type ORDER BY SUM(events) DESC, provider, event_type';
    const from = Math.max(0, Math.floor(since / HOUR) * HOUR);
    const { rows } = await this.runner.query(
      sql,
      provider === undefined ? [from] : [from, provider],
    );
    return rows.map((row) => ({
      provider: text(row.provider),
      type: text(row.event_type),
      count: Number(row.events),
      lastHour: new Date(Number(row.last_ms)),
    }));
  }
}

/** {@link IgnoredTable.totals}, or `null` when the counts table does not exist (an install not migrated since). */
export async function totalsIfCounted(
  table: IgnoredTable,
  spec: DialectSpec,
  query: IgnoredQuery,
): Promise<IgnoredTotal[] | null> {
  try {
    return await table.totals(query);
  } catch (error) {
    if (isMissingTable(spec, error)) return null;
    throw error;
  }
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
