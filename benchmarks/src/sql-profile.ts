/**
 * @module Where the guard's transactional first delivery on PostgreSQL spends what "Node + pg by
 * hand" does not (the last throughput goal): the same workload as sql.bench.ts (8 clients, a claim,
 * then BEGIN, one business INSERT, the receipt's complete, COMMIT), run for ours and for the
 * by-hand loop in turn on one durable server, each under the in-process CPU profiler
 * (`node:inspector`), with pg_stat_statements counting the statements each sends per delivery.
 * Prints, per side, deliveries/s, statements and Node CPU per delivery, and the profile's self
 * time per delivery by origin (our packages, pg, Node core, the garbage collector) and the top
 * functions of ours.
 *
 * Usage: `pnpm --filter @webhook-idempotency/benchmarks bench:sql-profile [seconds]` (default 5);
 * `SQL_PROFILE_OUT=<dir>` also writes both profiles there.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IdempotencyGuard, RequestKey } from '@webhook-idempotency/core';
import { Schema, SqlStore } from '@webhook-idempotency/sql';
import pg from 'pg';
import { startDurablePostgres } from '../../packages/reliability/src/durable-databases';
import { pgByHand } from './sql.bench';

const CLIENTS = 8;

interface ProfileNode {
  id: number;
  children?: number[];
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

function post<T>(session: Session, method: string, params?: object): Promise<T> {
  return new Promise((resolve, reject) =>
    session.post(method, params ?? {}, (error, result) =>
      error ? reject(error) : resolve(result as T),
    ),
  );
}

/** Where a profile node's code comes from. */
function originOf(node: ProfileNode): string {
  const { url, functionName } = node.callFrame;
  if (functionName === '(garbage collector)') return 'garbage collector';
  if (functionName === '(idle)' || functionName === '(program)') return functionName;
  const pkg = /node_modules\/\.pnpm\/([^/]+?)@/.exec(url);
  if (pkg) return `driver and others: ${pkg[1]}`;
  const ours = /\/packages\/([^/]+)\/src\//.exec(url);
  if (ours) return `ours: ${ours[1]}`;
  if (url.startsWith('node:') || url === '') return 'Node.js core and native';
  return 'benchmark';
}

async function profiled(
  label: string,
  seconds: number,
  op: (id: string) => Promise<unknown>,
  pool: pg.Pool,
): Promise<void> {
  let sequence = 0;
  const fresh = () => `${process.pid}-${Date.now()}-${++sequence}`;
  // Warm-up: prepared statements, JIT.
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      for (let i = 0; i < 200; i++) await op(fresh());
    }),
  );
  await pool.query('SELECT pg_stat_statements_reset()');
  const session = new Session();
  session.connect();
  await post(session, 'Profiler.enable');
  await post(session, 'Profiler.setSamplingInterval', { interval: 100 });
  await post(session, 'Profiler.start');
  const cpu = process.cpuUsage();
  const until = Date.now() + seconds * 1000;
  let done = 0;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (Date.now() < until) {
        await op(fresh());
        done++;
      }
    }),
  );
  const used = process.cpuUsage(cpu);
  const { profile } = await post<{ profile: CpuProfile }>(session, 'Profiler.stop');
  session.disconnect();
  // SQL_PROFILE_OUT=<dir>: each side's profile as a .cpuprofile (Chrome DevTools reads them).
  if (process.env.SQL_PROFILE_OUT)
    writeFileSync(
      join(process.env.SQL_PROFILE_OUT, `${label}.cpuprofile`),
      JSON.stringify(profile),
    );
  const statements = await pool.query<{ query: string; calls: string }>(
    "SELECT query, calls FROM pg_stat_statements WHERE query NOT LIKE '%pg_stat_statements%'",
  );
  const perDelivery = statements.rows.reduce((sum, row) => sum + Number(row.calls), 0) / done;
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => {
    self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  const byOrigin = new Map<string, number>();
  const byFunction = new Map<string, number>();
  for (const node of profile.nodes) {
    const us = self.get(node.id) ?? 0;
    const origin = originOf(node);
    byOrigin.set(origin, (byOrigin.get(origin) ?? 0) + us);
    if (origin.startsWith('ours') || origin === 'Node.js core and native') {
      const name = `${node.callFrame.functionName || '(anonymous)'} ${node.callFrame.url.replace(/.*\/packages\//, '')}:${node.callFrame.lineNumber + 1}`;
      byFunction.set(name, (byFunction.get(name) ?? 0) + us);
    }
  }
  console.log(
    `  ${(done / seconds).toFixed(0)} deliveries/s; ${perDelivery.toFixed(2)} statements and ${((used.user + used.system) / done).toFixed(0)} µs of Node CPU per delivery`,
  );
  for (const [origin, us] of [...byOrigin].sort((a, b) => b[1] - a[1]))
    if (origin !== '(idle)') console.log(`    ${(us / done).toFixed(1).padStart(7)} µs  ${origin}`);
  console.log('    top functions (ours, Node core):');
  for (const [name, us] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, 14))
    console.log(`    ${(us / done).toFixed(1).padStart(7)} µs  ${name}`);
}

async function main(): Promise<void> {
  const seconds = Number(process.argv[2] ?? 5);
  const dir = mkdtempSync(join(tmpdir(), 'wi-sql-profile-'));
  chmodSync(dir, 0o755);
  const server = await startDurablePostgres(join(dir, 'pg'), {
    settings: ['shared_preload_libraries=pg_stat_statements', 'pg_stat_statements.track=all'],
  });
  const pool = new pg.Pool({ connectionString: server.url, max: CLIENTS });
  try {
    await pool.query('CREATE EXTENSION pg_stat_statements');
    await Schema.createTable(pool);
    await pool.query('CREATE TABLE bench_effects (event TEXT PRIMARY KEY)');
    const guard = new IdempotencyGuard(new SqlStore(pool), { transactional: true });
    const ours = (id: string) =>
      guard.run(new RequestKey('bench', id), async ({ transaction }) => {
        await (transaction as pg.PoolClient).query({
          name: 'ours_effect',
          text: 'INSERT INTO bench_effects (event) VALUES ($1)',
          values: [id],
        });
        return { received: true };
      });
    // The same named statements, sent by hand (sql.bench.ts's "by hand" column).
    const hand = pgByHand(pool);
    const byHand = (id: string) => hand.transactionalFirst(id);
    console.log(
      `Node ${process.version}, PostgreSQL (durable), ${CLIENTS} clients, ${seconds} s each:`,
    );
    console.log('by hand (Node + pg, the same statements):');
    await profiled('by-hand', seconds, byHand, pool);
    console.log('ours (IdempotencyGuard, transactional, SqlStore):');
    await profiled('ours', seconds, ours, pool);
  } finally {
    await pool.end();
    await server.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
}

void main().catch((error) => {
  console.error(error);
  process.exit(1);
});
