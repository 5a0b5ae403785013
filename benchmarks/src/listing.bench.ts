/**
 * @module The receipts listing (`ReceiptsAdmin.list`, what the dashboard and the CLI's `list` run)
 * on a table of `BENCH_LISTING_ROWS` receipts (default 100,000) on durable PostgreSQL 15, MariaDB
 * and a SQLite file: the first page, the next page after it, a page deep in the table (after a
 * cursor half-way), and the first page of one provider's and of one status's receipts, each the
 * median of several runs; with the index on (claimed_at, provider, external_id) that serves the
 * listing's order, then in the same run without it (the table as it was before that index: the
 * whole table read and sorted for every page), with each first page's plan.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type ListOptions,
  ReceiptsAdmin,
  Schema,
  type SqlConnection,
  type SqlDialect,
} from '@webhook-idempotency/sql';
import Database from 'better-sqlite3';
import mysql from 'mysql2/promise';
import pg from 'pg';
import {
  startDurableMariadb,
  startDurablePostgres,
} from '../../packages/reliability/src/durable-databases';
import { createExecutor } from '../../packages/sql/src/connections/detect';
import { dialects } from '../../packages/sql/src/dialects';

const ROWS = Number(process.env.BENCH_LISTING_ROWS ?? 100_000);
const RUNS = Number(process.env.BENCH_LISTING_RUNS ?? 25);
const TABLE = 'webhook_receipts';
const INDEX = `${TABLE}_claimed_idx`;
const PROVIDERS = ['stripe', 'github', 'shopify', 'paypal', 'slack'];
const BASE_MS = Date.UTC(2026, 0, 1);

/** One database's scenarios, in ms (median). */
interface Timings {
  readonly first: number;
  readonly next: number;
  readonly deep: number;
  readonly provider: number;
  readonly status: number;
  readonly plan: string;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;

async function timed(runs: number, op: () => Promise<unknown>): Promise<number> {
  await op();
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    await op();
    ms.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return median(ms);
}

/** `ROWS` finished receipts, a second apart per provider, through multi-row INSERTs. */
async function fill(db: SqlConnection): Promise<void> {
  const executor = createExecutor(db, 60_000, false);
  const spec = dialects[executor.dialect];
  const batch = 1000;
  for (let start = 0; start < ROWS; start += batch) {
    const n = Math.min(batch, ROWS - start);
    const params = Array.from({ length: n }, (_, k) => {
      const i = start + k;
      const at = BASE_MS + Math.floor(i / PROVIDERS.length) * 1000;
      const status = i % 97 === 0 ? 'failed' : 'completed';
      return [PROVIDERS[i % PROVIDERS.length], `evt_${i}`, status, at, at + 80];
    });
    await executor.query(
      `INSERT INTO ${spec.quote(TABLE)} (provider, external_id, status, attempts, claimed_at, finished_at) VALUES ${params
        .map(() => `(?, ?, ?, 1, ${spec.atMs}, ${spec.atMs})`)
        .join(', ')}`,
      params.flat(),
    );
  }
}

/** The scenarios on `db`; `explain` gives the first page's plan in a word or two. */
async function scenarios(
  db: SqlConnection,
  runs: number,
  explain: () => Promise<string>,
): Promise<Timings> {
  const admin = new ReceiptsAdmin(db);
  const page = (options: ListOptions) => admin.list({ limit: 50, ...options });
  const first = await page({});
  const [middle] = await page({ claimedBefore: new Date(BASE_MS + (ROWS / 10) * 1000), limit: 1 });
  return {
    first: await timed(runs, () => page({})),
    next: await timed(runs, () => page({ after: first[first.length - 1]! })),
    deep: await timed(runs, () => page({ after: middle! })),
    provider: await timed(runs, () => page({ provider: 'github' })),
    status: await timed(runs, () => page({ status: 'failed' })),
    plan: await explain(),
  };
}

/** The plan of the first page: the index it reads, or how it reads the table. */
async function planOf(db: SqlConnection, dialect: SqlDialect): Promise<string> {
  const executor = createExecutor(db, 60_000, false);
  const { rows } = await executor.query(
    `${dialect === 'sqlite' ? 'EXPLAIN QUERY PLAN' : 'EXPLAIN'} SELECT provider FROM ${dialects[dialect].quote(TABLE)} ORDER BY claimed_at DESC, provider DESC, external_id DESC LIMIT 50`,
    [],
  );
  const text = rows
    .map((row) => String(row['QUERY PLAN'] ?? row.detail ?? `${row.type} ${row.key} ${row.Extra}`))
    .join(' ');
  if (text.includes(INDEX)) return 'index scan';
  return /Seq Scan|ALL|SCAN webhook_receipts$/.test(text.trim()) ||
    /Sort|filesort|TEMP B-TREE/.test(text)
    ? 'whole table read and sorted'
    : text.slice(0, 60);
}

/** With the index, then without it; the index is dropped in between. */
async function both(
  name: string,
  db: SqlConnection,
  dialect: SqlDialect,
  analyze: string,
  dropIndex: string,
): Promise<Array<[string, Timings]>> {
  const executor = createExecutor(db, 60_000, false);
  await Schema.createTable(db);
  await fill(db);
  await executor.query(analyze, []);
  const served = await scenarios(db, RUNS, () => planOf(db, dialect));
  await executor.query(dropIndex, []);
  await executor.query(analyze, []);
  const unserved = await scenarios(db, Math.max(3, Math.ceil(RUNS / 5)), () => planOf(db, dialect));
  return [
    [`${name}, with the listing index`, served],
    [`${name}, without it (before)`, unserved],
  ];
}

/** Runs the listing scenarios on the three databases and logs their table. */
export async function runListingBench(log: (line?: string) => void): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'wi-bench-listing-'));
  chmodSync(dir, 0o755); // PostgreSQL runs as its own user and must reach its folder inside
  const results: Array<[string, Timings]> = [];
  try {
    const postgres = await startDurablePostgres(join(dir, 'pg'));
    const pool = new pg.Pool({ connectionString: postgres.url, max: 2 });
    try {
      results.push(
        ...(await both(
          'PostgreSQL 15',
          pool,
          'postgres',
          `ANALYZE ${TABLE}`,
          `DROP INDEX ${INDEX}`,
        )),
      );
    } finally {
      await pool.end();
      await postgres.destroy();
    }
    const mariadb = await startDurableMariadb(join(dir, 'mariadb'));
    const setup = await mysql.createConnection(mariadb.url);
    await setup.query('CREATE DATABASE bench');
    await setup.end();
    const mysqlPool = mysql.createPool({ uri: `${mariadb.url}bench`, connectionLimit: 2 });
    try {
      results.push(
        ...(await both(
          'MariaDB',
          mysqlPool,
          'mysql',
          `ANALYZE TABLE ${TABLE}`,
          `DROP INDEX ${INDEX} ON ${TABLE}`,
        )),
      );
    } finally {
      await mysqlPool.end();
      await mariadb.destroy();
    }
    const file = new Database(join(dir, 'listing.db'));
    file.pragma('journal_mode = WAL');
    try {
      results.push(
        ...(await both('SQLite file', file, 'sqlite', 'ANALYZE', `DROP INDEX ${INDEX}`)),
      );
    } finally {
      file.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  report(results, log);
}

function report(results: ReadonlyArray<[string, Timings]>, log: (line?: string) => void): void {
  const ms = (value: number) => `${value < 10 ? value.toFixed(2) : value.toFixed(0)} ms`;
  log(`## The receipts listing at ${ROWS.toLocaleString('en')} receipts`);
  log();
  log(
    '`ReceiptsAdmin.list` (the dashboard\'s receipts page, the CLI\'s `list`), 50 per page, newest first: the median of each page. "Next" is the page after the first, "deep" the page after a receipt half-way through the table; "one provider" and "failed" are first pages with those filters. Then the same table without the index on (claimed_at, provider, external_id), as tables made before it were.',
  );
  log();
  log(
    '| database | first page | next page | deep page | one provider | failed | first page read as |',
  );
  log('|---|---|---|---|---|---|---|');
  for (const [name, t] of results)
    log(
      `| ${name} | ${ms(t.first)} | ${ms(t.next)} | ${ms(t.deep)} | ${ms(t.provider)} | ${ms(t.status)} | ${t.plan} |`,
    );
}

if (require.main === module) {
  runListingBench((line = '') => console.log(line)).catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
