/**
 * @module The SQL paths against an anchor that runs the same statements without us, in
 * interleaved rounds on the same durable servers (PostgreSQL `fsync=on`, InnoDB
 * `innodb_flush_log_at_trx_commit=1`, SQLite WAL with `synchronous=NORMAL`, as recommended), 8 clients each.
 *
 * - PostgreSQL: `pgbench -M prepared` sending the store's exact statements (read from the
 *   store's own query builder), against `guard.run` on a `pg` Pool of 8.
 * - MariaDB: `mysql2` `execute()` with the same statements in the same order, against
 *   `guard.run` on a `mysql2` pool of 8.
 * - SQLite: `better-sqlite3` with the same statements, against `guard.run` on the same file.
 *
 * Workloads: first delivery (claim + complete), replay (a completed receipt), and transactional
 * first delivery (claim, BEGIN, one business INSERT, complete, COMMIT). The Redis store's rows
 * (first delivery and replay; it has no transactions) come from `redis.bench.ts`, and the DynamoDB
 * store's (against Powertools' idempotency utility on the same server) from `dynamodb.bench.ts`,
 * in the same run.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { IdempotencyGuard, RequestKey } from '@webhook-idempotency/core';
import { Schema, SqlStore } from '@webhook-idempotency/sql';
import Database from 'better-sqlite3';
import mysql from 'mysql2/promise';
import pg from 'pg';
import {
  startDurableMariadb,
  startDurablePostgres,
} from '../../packages/reliability/src/durable-databases';
import { dialects } from '../../packages/sql/src/dialects';
import { buildQueries } from '../../packages/sql/src/receipts/queries';
import { dynamodbRows } from './dynamodb.bench';
import { redisRows } from './redis.bench';

const run = promisify(execFile);
const DURATION_S = Number(process.env.BENCH_SQL_DURATION ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CLIENTS = 8;
const TABLE = 'webhook_receipts';
const REPLAY_KEYS = 10_000;
const RESPONSE = JSON.stringify({ received: true });
const handler = async () => ({ received: true });

type Workload = 'first' | 'replay' | 'transactional first';
const WORKLOADS: readonly Workload[] = ['first', 'replay', 'transactional first'];

/** Deliveries per second over `seconds`: `CLIENTS` loops, each awaiting `op` in turn. */
export async function loops(
  op: (id: string) => Promise<unknown>,
  ids: () => string,
  seconds = DURATION_S,
): Promise<number> {
  const until = Date.now() + seconds * 1000;
  let done = 0;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (Date.now() < until) {
        await op(ids());
        done++;
      }
    }),
  );
  return done / seconds;
}

let sequence = 0;
/** First-delivery ids: unique per run, never in the replay range. */
export const freshId = () => String(1_000_000_000 + process.pid * 100_000_000 + ++sequence);
const replayId = () => String(1 + Math.floor(Math.random() * REPLAY_KEYS));

/** The guard side of one workload, on any connection the store takes. */
function ours(
  db: ConstructorParameters<typeof SqlStore>[0],
  effect: (transaction: unknown, id: string) => unknown,
) {
  const plain = new IdempotencyGuard(new SqlStore(db));
  const transactional = new IdempotencyGuard(new SqlStore(db), { transactional: true });
  return (workload: Workload) => {
    if (workload === 'transactional first')
      return loops(
        (id) =>
          transactional.run(new RequestKey('bench', id), async ({ transaction }) => {
            await effect(transaction, id);
            return { received: true };
          }),
        freshId,
      );
    return loops(
      (id) => plain.run(new RequestKey('bench', id), handler),
      workload === 'first' ? freshId : replayId,
    );
  };
}

/** Median and range of a list of numbers. */
export interface Spread {
  readonly median: number;
  readonly min: number;
  readonly max: number;
}

/** Median and range of a list of numbers. */
export function spread(values: readonly number[]): Spread {
  const sorted = [...values].sort((a, b) => a - b);
  return { median: sorted[Math.floor(sorted.length / 2)]!, min: sorted[0]!, max: sorted.at(-1)! };
}

/** Replaces each `?` of `sql` with the next of `tokens` (pgbench variables or literals). */
function bind(sql: string, tokens: readonly string[]): string {
  let i = 0;
  const text = sql.replace(/\?/g, () => tokens[i++]!);
  if (i !== tokens.length) throw new Error(`bind: ${i} placeholders, ${tokens.length} tokens`);
  return text;
}

/**
 * Node and `pg` by hand: the store's statements, named (prepared) as the store names them, sent
 * in its order: what any Node handler on that driver pays. A first delivery is the claim then the
 * complete; a transactional one the claim, then BEGIN, the business INSERT, the complete, COMMIT.
 */
export function pgByHand(pool: pg.Pool) {
  const q = buildQueries(dialects.postgres, TABLE);
  const named = (text: string) => {
    let n = 0;
    const numbered = text.replace(/\?/g, () => `$${++n}`);
    return {
      name: `raw_${createHash('sha256').update(numbered).digest('hex').slice(0, 24)}`,
      text: numbered,
    };
  };
  const [claimSql, completeSql] = [named(q.claim), named(q.completeClaim)];
  type ClaimRow = { claimed_ms: number; attempts: number; won: number };
  const claim = async (id: string, db: pg.Pool | pg.PoolClient = pool) =>
    (await db.query<ClaimRow>({ ...claimSql, values: ['bench', id, null, 'bench', id] })).rows[0]!;
  const complete = (db: pg.Pool | pg.PoolClient, id: string, row: ClaimRow) =>
    db.query({ ...completeSql, values: [RESPONSE, 'bench', id, row.attempts, row.claimed_ms] });
  return {
    claim,
    async first(id: string): Promise<void> {
      const row = await claim(id);
      if (Number(row.won) === 1) await complete(pool, id, row);
    },
    async transactionalFirst(id: string): Promise<void> {
      const row = await claim(id);
      if (Number(row.won) !== 1) return;
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        await client.query({
          name: 'raw_effect',
          text: 'INSERT INTO bench_effects (event) VALUES ($1)',
          values: [id],
        });
        await complete(client, id, row);
        await client.query('COMMIT');
      } finally {
        client.release();
      }
    },
  };
}

async function postgresRows(dir: string): Promise<Row[]> {
  const server = await startDurablePostgres(join(dir, 'pg'));
  const pool = new pg.Pool({ connectionString: server.url, max: CLIENTS });
  try {
    await Schema.createTable(pool);
    await pool.query('CREATE TABLE bench_effects (event TEXT PRIMARY KEY)');
    await seed((id) =>
      pool.query(
        `INSERT INTO ${TABLE} (provider, external_id, status, response, attempts, claimed_at, finished_at) VALUES ('bench', $1, 'completed', $2, 1, now(), now())`,
        [id, RESPONSE],
      ),
    );
    const q = buildQueries(dialects.postgres, TABLE);
    // The claim's result row lands in c_claimed_ms / c_attempts (\gset), as the store reads them.
    const claim = `${bind(q.claim, [':provider', ':id', 'NULL', ':provider', ':id'])} \\gset c_`;
    const complete = `${bind(q.completeClaim, [':response', ':provider', ':id', ':c_attempts', ':c_claimed_ms'])};`;
    const scripts: Record<Workload, string> = {
      first: `\\set id random(2000000000, 9000000000000)\n${claim}\n${complete}\n`,
      replay: `\\set id random(1, ${REPLAY_KEYS})\n${claim}\n`,
      'transactional first': [
        '\\set id random(2000000000, 9000000000000)',
        claim,
        'BEGIN;',
        'INSERT INTO bench_effects (event) VALUES (:id);',
        complete,
        'COMMIT;',
        '',
      ].join('\n'),
    };
    const anchor = async (workload: Workload) => {
      const file = join(dir, `pgbench-${workload.replace(/ /g, '-')}.sql`);
      writeFileSync(file, scripts[workload]);
      const { stdout } = await run('pgbench', [
        '-n',
        '-M',
        'prepared',
        '-c',
        String(CLIENTS),
        '-j',
        '2',
        '-T',
        String(DURATION_S),
        '-D',
        'provider=bench',
        '-D',
        `response=${RESPONSE}`,
        '-f',
        file,
        server.url,
      ]);
      const tps = /tps = ([\d.]+)/.exec(stdout);
      if (!tps) throw new Error(`pgbench printed no tps:\n${stdout}`);
      return Number(tps[1]);
    };
    const byHand = pgByHand(pool);
    const raw = (workload: Workload) => {
      if (workload === 'replay') return loops((id) => byHand.claim(id), replayId);
      if (workload === 'first') return loops((id) => byHand.first(id), freshId);
      return loops((id) => byHand.transactionalFirst(id), freshId);
    };
    return await compare(
      'PostgreSQL 15',
      'pgbench -M prepared',
      anchor,
      ours(pool, (tx, id) =>
        (tx as pg.PoolClient).query({
          name: 'ours_effect',
          text: 'INSERT INTO bench_effects (event) VALUES ($1)',
          values: [id],
        }),
      ),
      raw,
    );
  } finally {
    await pool.end();
    await server.destroy();
  }
}

async function mariadbRows(dir: string): Promise<Row[]> {
  const server = await startDurableMariadb(join(dir, 'mariadb'));
  const setup = await mysql.createConnection(server.url);
  await setup.query('CREATE DATABASE bench');
  await setup.end();
  const pool = mysql.createPool({ uri: `${server.url}bench`, connectionLimit: CLIENTS });
  try {
    await Schema.createTable(pool);
    await pool.query('CREATE TABLE bench_effects (event VARCHAR(64) PRIMARY KEY)');
    await seed((id) =>
      pool.execute(
        `INSERT INTO ${TABLE} (provider, external_id, status, response, attempts, claimed_at, finished_at) VALUES ('bench', ?, 'completed', ?, 1, UTC_TIMESTAMP(3), UTC_TIMESTAMP(3))`,
        [id, RESPONSE],
      ),
    );
    const q = buildQueries(dialects.mysql, TABLE);
    // The statements the store sends, in its order: a won INSERT carries the claim time in its
    // insert id; a duplicate fails on the unique index and is read back.
    const claim = async (db: mysql.Pool | mysql.PoolConnection, id: string) => {
      try {
        const [result] = await db.execute<mysql.ResultSetHeader>(q.claim, ['bench', id, null]);
        return Number(result.insertId);
      } catch {
        await db.execute(q.find, ['bench', id]);
        return undefined;
      }
    };
    const complete = (db: mysql.Pool | mysql.PoolConnection, id: string, claimedMs: number) =>
      db.execute(q.completeClaim, [RESPONSE, 'bench', id, '1', String(claimedMs)]);
    const anchor = (workload: Workload) => {
      if (workload === 'replay') return loops((id) => claim(pool, id), replayId);
      if (workload === 'first')
        return loops(async (id) => {
          const claimedMs = await claim(pool, id);
          if (claimedMs !== undefined) await complete(pool, id, claimedMs);
        }, freshId);
      return loops(async (id) => {
        const claimedMs = await claim(pool, id);
        if (claimedMs === undefined) return;
        const connection = await pool.getConnection();
        try {
          await connection.query('START TRANSACTION');
          await connection.execute('INSERT INTO bench_effects (event) VALUES (?)', [id]);
          await complete(connection, id, claimedMs);
          await connection.query('COMMIT');
        } finally {
          connection.release();
        }
      }, freshId);
    };
    return await compare(
      'MariaDB (Debian 12)',
      'mysql2 execute(), same statements',
      anchor,
      ours(pool, (tx, id) =>
        (tx as mysql.PoolConnection).execute('INSERT INTO bench_effects (event) VALUES (?)', [id]),
      ),
    );
  } finally {
    await pool.end();
    await server.destroy();
  }
}

async function sqliteRows(dir: string): Promise<Row[]> {
  const file = join(dir, 'bench.db');
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL'); // as the HTTP rows and the docs' setup
  try {
    await Schema.createTable(db);
    db.exec('CREATE TABLE bench_effects (event TEXT PRIMARY KEY)');
    const prefill = db.prepare(
      `INSERT INTO ${TABLE} (provider, external_id, status, response, attempts, claimed_at, finished_at) VALUES ('bench', ?, 'completed', ?, 1, 0, 0)`,
    );
    db.transaction(() => {
      for (let i = 1; i <= REPLAY_KEYS; i++) prefill.run(String(i), RESPONSE);
    })();
    const q = buildQueries(dialects.sqlite, TABLE);
    const claim = db.prepare(q.claim);
    const find = db.prepare(q.find);
    const complete = db.prepare(q.completeClaim);
    const effect = db.prepare('INSERT INTO bench_effects (event) VALUES (?)');
    const claimOne = (id: string) => {
      const row = claim.get('bench', id, null) as { claimed_ms: number } | undefined;
      if (!row) find.get('bench', id);
      return row?.claimed_ms;
    };
    // The same statements, one at a time on the one connection, as the store's queue runs them.
    const anchor = (workload: Workload) => {
      if (workload === 'replay') return loops(async (id) => claimOne(id), replayId);
      return loops(async (id) => {
        const claimedMs = claimOne(id);
        if (claimedMs === undefined) return;
        if (workload === 'first') {
          complete.run(RESPONSE, 'bench', id, 1, claimedMs);
          return;
        }
        db.exec('BEGIN IMMEDIATE');
        effect.run(id);
        complete.run(RESPONSE, 'bench', id, 1, claimedMs);
        db.exec('COMMIT');
      }, freshId);
    };
    return await compare(
      'SQLite file (WAL, synchronous=NORMAL)',
      'better-sqlite3, same statements',
      anchor,
      ours(db, (_tx, id) => effect.run(id)),
    );
  } finally {
    db.close();
  }
}

/** Fills the replay range with completed receipts, 8 at a time. */
async function seed(insert: (id: string) => Promise<unknown>): Promise<void> {
  for (let i = 1; i <= REPLAY_KEYS; i += CLIENTS)
    await Promise.all(
      Array.from({ length: Math.min(CLIENTS, REPLAY_KEYS - i + 1) }, (_, k) =>
        insert(String(i + k)),
      ),
    );
}

export interface Row {
  readonly database: string;
  readonly anchorName: string;
  readonly workload: Workload;
  readonly anchor: { median: number; min: number; max: number };
  readonly ours: { median: number; min: number; max: number };
  readonly ratio: { median: number; min: number; max: number };
  /** Node and the same driver sending the same statements by hand, when measured. */
  readonly raw?: { median: number; min: number; max: number };
  /** Ours ÷ that raw driver loop, per round: what our layers cost on top of the driver. */
  readonly oursOverRaw?: { median: number; min: number; max: number };
}

/** Interleaved rounds: anchor then ours for every workload, `ROUNDS` times; ratio per round. */
async function compare(
  database: string,
  anchorName: string,
  anchor: (workload: Workload) => Promise<number>,
  guard: (workload: Workload) => Promise<number>,
  raw?: (workload: Workload) => Promise<number>,
): Promise<Row[]> {
  const samples = new Map<Workload, { anchor: number[]; ours: number[]; raw: number[] }>(
    WORKLOADS.map((w) => [w, { anchor: [], ours: [], raw: [] }]),
  );
  for (let round = 0; round < ROUNDS; round++)
    for (const workload of WORKLOADS) {
      const sample = samples.get(workload)!;
      sample.anchor.push(await anchor(workload));
      if (raw) sample.raw.push(await raw(workload));
      sample.ours.push(await guard(workload));
    }
  return WORKLOADS.map((workload) => {
    const { anchor: a, ours: o, raw: r } = samples.get(workload)!;
    return {
      database,
      anchorName,
      workload,
      anchor: spread(a),
      ours: spread(o),
      ratio: spread(o.map((value, i) => value / a[i]!)),
      ...(raw && { raw: spread(r), oursOverRaw: spread(o.map((value, i) => value / r[i]!)) }),
    };
  });
}

/** Every SQL row; servers started and removed here. */
export async function runSqlBench(): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), 'wi-bench-sql-'));
  chmodSync(dir, 0o755); // PostgreSQL runs as its own user and must reach its folder inside
  try {
    const only = process.env.BENCH_SQL_ONLY?.split(',');
    const rows: Row[] = [];
    if (!only || only.includes('postgres')) rows.push(...(await postgresRows(dir)));
    if (!only || only.includes('mariadb')) rows.push(...(await mariadbRows(dir)));
    if (!only || only.includes('sqlite')) rows.push(...(await sqliteRows(dir)));
    if (!only || only.includes('redis')) rows.push(...(await redisRows(dir)));
    if (!only || only.includes('dynamodb')) rows.push(...(await dynamodbRows(dir)));
    return rows;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The report's section. */
export function sqlReport(rows: readonly Row[], log: (line?: string) => void): void {
  const fmt = (s: { median: number; min: number; max: number }, digits = 0) =>
    `${s.median.toFixed(digits)} (${s.min.toFixed(digits)}–${s.max.toFixed(digits)})`;
  log(
    `## SQL stores against the same statements without us (${CLIENTS} clients, ${DURATION_S} s per workload, ${ROUNDS} interleaved rounds, durable settings)`,
  );
  log();
  log(
    '| database | workload | anchor | anchor /s | Node + driver by hand /s | ours /s | ours ÷ anchor (per round) | ours ÷ by hand |',
  );
  log('|---|---|---|---|---|---|---|---|');
  for (const r of rows)
    log(
      `| ${r.database} | ${r.workload} | ${r.anchorName} | ${fmt(r.anchor)} | ${r.raw ? fmt(r.raw) : '—'} | ${fmt(r.ours)} | ${fmt(r.ratio, 2)} | ${r.oursOverRaw ? fmt(r.oursOverRaw, 2) : '—'} |`,
    );
}

if (require.main === module) {
  void runSqlBench().then(
    (rows) => {
      if (process.env.BENCH_SQL_JSON) process.stdout.write(JSON.stringify(rows));
      else sqlReport(rows, console.log);
    },
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
