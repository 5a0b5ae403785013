/**
 * @module Where the inbox worker's time goes on PostgreSQL: a backlog stored through `SqlInbox`,
 * drained by `createInboxWorker` with the bench's booking handler, then pg_stat_statements (calls
 * and execution time per drained delivery, by statement), commits and sessions per delivery, and
 * the claim's plan on the fresh backlog as the worker runs it.
 * `node -r esbuild-register src/inbox-profile.ts [deliveries]`.
 */
import { mkdtempSync, chmodSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInboxWorker } from '@webhook-idempotency/core/inbox';
import { InboxSchema, Schema, SqlInbox, SqlStore } from '@webhook-idempotency/sql';
import type pg from 'pg';
import { startDurablePostgres } from '../../packages/reliability/src/durable-databases';
import { bookingHandler, openBenchDatabase } from './booking';
import { postgresClaimPlan } from './inbox.bench';
import { EFFECTS_TABLE } from './inbox-paths';

async function main(): Promise<void> {
  const total = Number(process.argv[2] ?? 3000);
  const dir = mkdtempSync(join(tmpdir(), 'wi-inbox-profile-'));
  chmodSync(dir, 0o755);
  const server = await startDurablePostgres(join(dir, 'pg'), {
    settings: ['shared_preload_libraries=pg_stat_statements', 'pg_stat_statements.track=all'],
  });
  const bench = openBenchDatabase(server.url);
  const pool = bench.db as pg.Pool;
  try {
    await pool.query('CREATE EXTENSION pg_stat_statements');
    await InboxSchema.createTable(pool);
    await Schema.createTable(pool);
    await pool.query(`CREATE TABLE ${EFFECTS_TABLE} (event TEXT PRIMARY KEY)`);
    for (const statement of (process.env.PROFILE_SETUP ?? '').split(';').filter(Boolean))
      await pool.query(statement);
    const inbox = new SqlInbox(pool);
    const body = Buffer.from(JSON.stringify({ type: 'payment.succeeded', amount: 100 }));
    for (let i = 0; i < total; i += 200)
      await Promise.all(
        Array.from({ length: Math.min(200, total - i) }, (_, j) =>
          inbox.enqueue({
            provider: 'bench',
            externalId: `evt_${i + j}`,
            orderingKey: null,
            headers: {},
            body,
          }),
        ),
      );
    await pool.query('CHECKPOINT');
    // The claim's plan as the worker runs it (its settings in its transaction), on the fresh backlog.
    console.log('claim of one:', JSON.stringify(await postgresClaimPlan(pool)));
    await pool.query('SELECT pg_stat_statements_reset(), pg_stat_reset()');
    const stat = async () =>
      (
        await pool.query<{ xact_commit: string; sessions: string }>(
          "SELECT xact_commit, sessions FROM pg_stat_database WHERE datname = 'postgres'",
        )
      ).rows[0]!;
    const before = await stat();
    let processed = 0;
    let finish: () => void = () => undefined;
    const done = new Promise<void>((resolve) => (finish = resolve));
    const worker = createInboxWorker({
      inbox,
      store: new SqlStore(pool),
      handlers: {
        bench: bookingHandler(bench.book),
      },
      // `PROFILE_WORKER='{"concurrency":4}'`: the worker's options other than the defaults.
      ...(JSON.parse(process.env.PROFILE_WORKER ?? '{}') as object),
      onEvent: (event) => {
        if (event.type === 'processed' && ++processed >= total) finish();
        if (event.type !== 'processed') console.error(event);
      },
    });
    const cpu = process.cpuUsage();
    const started = process.hrtime.bigint();
    worker.start();
    await done;
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const used = process.cpuUsage(cpu);
    await worker.stop();
    const after = await stat();
    console.log(
      `${total} deliveries in ${seconds.toFixed(2)} s: ${(total / seconds).toFixed(0)}/s; Node CPU ${((used.user + used.system) / total).toFixed(0)} µs/delivery; commits ${((Number(after.xact_commit) - Number(before.xact_commit)) / total).toFixed(2)}/delivery; sessions ${Number(after.sessions) - Number(before.sessions)}`,
    );
    const { rows } = await pool.query<{
      query: string;
      calls: string;
      ms: number;
      rows: string;
      blks: string;
    }>(
      `SELECT left(regexp_replace(query, '\\s+', ' ', 'g'), 110) AS query, calls, total_exec_time AS ms, rows, shared_blks_hit + shared_blks_read AS blks
         FROM pg_stat_statements ORDER BY total_exec_time DESC LIMIT ${Number(process.env.PROFILE_STATEMENTS ?? 16)}`,
    );
    for (const row of rows)
      console.log(
        `${(Number(row.calls) / total).toFixed(2).padStart(6)} calls ${((row.ms * 1000) / total).toFixed(0).padStart(6)} µs ${(Number(row.blks) / Math.max(1, Number(row.calls))).toFixed(1).padStart(7)} blks/call  ${row.query}`,
      );
    // The batch's receipts read, for 8 keys of the drained backlog, as the worker sends it.
    const keys = (
      await pool.query<{ external_id: string }>(
        'SELECT external_id FROM webhook_receipts ORDER BY external_id DESC LIMIT 8',
      )
    ).rows.map((row) => row.external_id);
    const plan = await pool.query(
      `EXPLAIN (ANALYZE, BUFFERS) ${keys.map((_, i) => `SELECT provider, external_id FROM webhook_receipts WHERE provider = $1 AND external_id = $${i + 2}`).join(' UNION ALL ')}`,
      ['bench', ...keys],
    );
    console.log(plan.rows.map((row) => Object.values(row)[0]).join('\n'));
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
