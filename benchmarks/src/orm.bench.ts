/**
 * @module Each ORM connection kind (`fromKysely`, `fromDrizzle`, `fromPrisma`, `fromPostgres`)
 * against the same statements sent by hand through the same ORM, in interleaved rounds on the
 * same durable servers: what our layers cost on top of the ORM, not the ORM's on top of the
 * driver (docs/benchmarks.md's SQL section has that against the drivers).
 *
 * By hand is the store's own statements (read from its query builder), in its order, through the
 * tool's raw-SQL API: a first delivery is the claim, then the complete (MySQL without an insert id,
 * Prisma's case: the claim, a read, the complete); a replay the claim; a transactional first
 * delivery the claim, then the business INSERT and the complete in one of the tool's transactions.
 * Ours is `guard.run` over `new SqlStore(connection)`, the business INSERT through the handle the
 * handler is given. 8 clients each.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IdempotencyGuard, RequestKey } from '@webhook-idempotency/core';
import { Schema, SqlStore } from '@webhook-idempotency/sql';
import mysql from 'mysql2/promise';
import pg from 'pg';
import {
  startDurableMariadb,
  startDurablePostgres,
} from '../../packages/reliability/src/durable-databases';
import { dialects } from '../../packages/sql/src/dialects';
import { buildQueries } from '../../packages/sql/src/receipts/queries';
import { openOrmKinds, type OrmKind } from './orm-kinds';
import { freshId, loops, spread, type Spread } from './sql.bench';

const DURATION_S = Number(process.env.BENCH_ORM_DURATION ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const REPLAY_KEYS = 2_000;
const RESPONSE = JSON.stringify({ received: true });
const EFFECT = 'INSERT INTO bench_effects (event) VALUES (?)';
const replayId = () => String(1 + Math.floor(Math.random() * REPLAY_KEYS));

type Workload = 'first' | 'replay' | 'transactional first';
const WORKLOADS: readonly Workload[] = ['first', 'replay', 'transactional first'];

/** One row of the report: a kind and a workload. */
export interface OrmRow {
  readonly kind: string;
  readonly workload: Workload;
  readonly byHand: Spread;
  readonly ours: Spread;
  /** Ours ÷ by hand, per round. */
  readonly ratio: Spread;
}

/** The store's statements by hand through `kind`'s raw API, one function per workload. */
function byHand(kind: OrmKind): (workload: Workload) => Promise<number> {
  const spec = dialects[kind.dialect];
  const q = buildQueries(spec, 'webhook_receipts');
  type Claimed = { attempts: number; claimedMs: number };
  const fromRow = (row: Record<string, unknown>): Claimed => ({
    attempts: Number(row.attempts),
    claimedMs: Number(row.claimed_ms),
  });
  // As the store claims: the INSERT the unique index arbitrates; a lost one reads the row.
  const claim = async (id: string): Promise<Claimed | undefined> => {
    const params: unknown[] = ['bench', id, null];
    if (q.claimReadsExisting) params.push('bench', id);
    let won = false;
    try {
      const result = await kind.query(q.claim, params);
      const row = result.rows[0];
      if (row) return Number(row.won) === 1 ? fromRow(row) : undefined;
      won = result.affected === 1;
      if (won && spec.attemptsReturningClaimTime && result.insertId)
        return { attempts: 1, claimedMs: result.insertId };
    } catch (error) {
      // MySQL has no ON CONFLICT DO NOTHING: a replay's claim fails on the unique index.
      if (kind.dialect !== 'mysql') throw error;
    }
    const row = (await kind.query(q.find, ['bench', id])).rows[0];
    return won && row ? fromRow(row) : undefined;
  };
  const complete = (id: string, c: Claimed) =>
    [q.completeClaim, [RESPONSE, 'bench', id, c.attempts, c.claimedMs]] as const;
  return (workload) => {
    if (workload === 'replay') return loops(claim, replayId, DURATION_S);
    return loops(
      async (id) => {
        const claimed = await claim(id);
        if (!claimed) return;
        const [sql, params] = complete(id, claimed);
        if (workload === 'first') await kind.query(sql, params);
        else
          await kind.transact([
            [EFFECT, [id]],
            [sql, params],
          ]);
      },
      freshId,
      DURATION_S,
    );
  };
}

/** `guard.run` over the kind's connection, one function per workload. */
function ours(kind: OrmKind): (workload: Workload) => Promise<number> {
  const plain = new IdempotencyGuard(new SqlStore(kind.connection));
  const transactional = new IdempotencyGuard(new SqlStore(kind.connection), {
    transactional: true,
  });
  return (workload) => {
    if (workload === 'transactional first')
      return loops(
        (id) =>
          transactional.run(new RequestKey('bench', id), async ({ transaction }) => {
            await kind.query(EFFECT, [id], transaction);
            return { received: true };
          }),
        freshId,
        DURATION_S,
      );
    return loops(
      (id) => plain.run(new RequestKey('bench', id), async () => ({ received: true })),
      workload === 'first' ? freshId : replayId,
      DURATION_S,
    );
  };
}

async function measure(kind: OrmKind): Promise<OrmRow[]> {
  await Schema.createTable(kind.connection);
  await kind.query('CREATE TABLE bench_effects (event VARCHAR(64) PRIMARY KEY)', []);
  const seed = new IdempotencyGuard(new SqlStore(kind.connection));
  for (let i = 1; i <= REPLAY_KEYS; i += 8)
    await Promise.all(
      Array.from({ length: 8 }, (_, k) =>
        seed.run(new RequestKey('bench', String(i + k)), async () => ({ received: true })),
      ),
    );
  const hand = byHand(kind);
  const guard = ours(kind);
  const samples = new Map(
    WORKLOADS.map((w) => [w, { hand: [] as number[], ours: [] as number[] }]),
  );
  for (let round = 0; round < ROUNDS; round++)
    for (const workload of WORKLOADS) {
      const sample = samples.get(workload)!;
      sample.hand.push(await hand(workload));
      sample.ours.push(await guard(workload));
    }
  return WORKLOADS.map((workload) => {
    const { hand: h, ours: o } = samples.get(workload)!;
    return {
      kind: kind.name,
      workload,
      byHand: spread(h),
      ours: spread(o),
      ratio: spread(o.map((value, i) => value / h[i]!)),
    };
  });
}

/** Every ORM row; servers started and removed here. */
export async function runOrmBench(): Promise<OrmRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'wi-bench-orm-'));
  chmodSync(dir, 0o755); // PostgreSQL runs as its own user and must reach its folder inside
  const postgresServer = await startDurablePostgres(join(dir, 'pg'));
  const mariadbServer = await startDurableMariadb(join(dir, 'mariadb'));
  const pgAdmin = new pg.Pool({ connectionString: postgresServer.url, max: 1 });
  const mysqlAdmin = await mysql.createConnection(mariadbServer.url);
  let kinds: OrmKind[] = [];
  try {
    kinds = await openOrmKinds({
      async postgres(name) {
        await pgAdmin.query(`CREATE DATABASE ${name}`);
        const url = new URL(postgresServer.url);
        url.pathname = `/${name}`;
        return url.toString();
      },
      async mysql(name) {
        await mysqlAdmin.query(`CREATE DATABASE ${name}`);
        return `${mariadbServer.url}${name}`;
      },
      sqlite: (name) => join(dir, `${name}.db`),
    });
    const only = process.env.BENCH_ORM_ONLY?.split(',');
    const rows: OrmRow[] = [];
    for (const kind of kinds)
      if (!only || only.some((part) => kind.name.includes(part)))
        rows.push(...(await measure(kind)));
    return rows;
  } finally {
    for (const kind of kinds) await kind.close();
    await pgAdmin.end();
    await mysqlAdmin.end();
    await postgresServer.destroy();
    await mariadbServer.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What the ORM section measures, under its table. */
export const ORM_NOTE =
  "By hand is the store's own statements, in its order, through the same tool's raw-SQL API and its own transaction (Kysely `executeQuery`, Drizzle `sql` with `execute`, or `all`/`run` on SQLite, Prisma `$queryRawUnsafe`/`$executeRawUnsafe` and `$transaction`, postgres-js `unsafe` with `prepare: true` and `sql.begin`): what a handler on that ORM pays for the same bookkeeping written without us. Ours adds the guard, the store's deadlines (the transaction's lock-wait bounds) and its error mapping. Run from sources, both sides alike; clients and databases share the two cores.";

/** The report's section. */
export function ormReport(rows: readonly OrmRow[], log: (line?: string) => void): void {
  const fmt = (s: Spread, digits = 0) =>
    `${s.median.toFixed(digits)} (${s.min.toFixed(digits)}–${s.max.toFixed(digits)})`;
  log(
    `## ORM connections against the same statements by hand through the same ORM (8 clients, ${DURATION_S} s per workload, ${ROUNDS} interleaved rounds, durable settings)`,
  );
  log();
  log(
    '| connection | workload | by hand through the ORM /s | ours /s | ours ÷ by hand (per round) |',
  );
  log('|---|---|---|---|---|');
  for (const r of rows)
    log(`| ${r.kind} | ${r.workload} | ${fmt(r.byHand)} | ${fmt(r.ours)} | ${fmt(r.ratio, 2)} |`);
}

if (require.main === module) {
  void runOrmBench().then(
    (rows) => {
      if (process.env.BENCH_ORM_JSON) process.stdout.write(JSON.stringify(rows));
      else ormReport(rows, console.log);
    },
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
