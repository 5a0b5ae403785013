/**
 * @module Storm with crashes, per store: 4 Express server processes take thousands of redelivered
 * webhooks while the test SIGKILLs two of them (restarted at once) and the database or Redis
 * server (restarted once; SQLite has none). On the SQL stores the servers run in transactional
 * mode (2 on the plain driver, 2 on the ORM the storm proves there: Kysely, Prisma, Drizzle) over
 * PostgreSQL, MariaDB and a SQLite file; on Redis, 2 on ioredis and 2 on node-redis, each handler
 * run writing one row to an effect ledger. Afterwards every id was answered 200, its effect
 * recorded exactly once per claim, is `completed`, and every replay is byte-identical to the first
 * answer; no app process crashed and no 5xx but 503 was answered.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import {
  startDurableMariadb,
  startDurablePostgres,
  type KillableDatabase,
} from '../src/durable-databases';
import { runStorm, type StormOptions, type StormReport, type StormTarget } from '../src/storm/run';
import {
  type RedisStormOptions,
  type RedisStormReport,
  runRedisStorm,
} from '../src/storm/redis-run';
import { startDurableRedis } from '@webhook-idempotency/test-support/durable-redis';
import { bySize } from '@webhook-idempotency/test-support/proof-size';

// pnpm test (CI): 2,000 deliveries over 200 ids. pnpm test:proof: 8,000 over 800. Soak: 40,000 over 4,000.
// Every size crosses the same faults: the kills are placed at fractions of the run, and the last
// fifth of the deliveries waits until every fault has begun (runStorm's hold), so that the kill
// inside a handler still meets fresh ids when a restart before it was slow (CI once ran SQLite's
// whole storm past it: 'ran no handler within 10000 ms').
const OPTIONS: StormOptions = {
  ids: bySize({ small: 200, full: 800, soak: 4_000 }),
  perId: 10,
  inFlight: 48,
  // Two servers on the plain driver, two on the ORM proved on that database (Kysely on PostgreSQL,
  // Prisma on MariaDB, Drizzle on SQLite), over the same tables: the kill from outside meets a
  // driver server, the kill inside a handler an ORM server's open transaction.
  servers: ['driver', 'driver', 'orm', 'orm'],
  poolSize: 16,
  // The handler stays 20 ms in its transaction after the write: the database and server kills meet
  // open transactions (SQLite below: 0, its transaction holds the file's only write lock).
  handlerDelayMs: 20,
  // Small, so that the claims of a SIGKILLed server are taken over within the run.
  staleAfterSeconds: 2,
  // The servers ask for up to `staleAfterSeconds`; the provider here waits at most 1 s (keeps the run short).
  retryAfterCapMs: 1_000,
  // Longer than staleAfterSeconds + the store's acquire timeout (10 s): the bound docs/guarantees.md promises.
  requestTimeoutMs: 15_000,
  giveUpAfterMs: 60_000,
  seed: 20_260_801,
  // One kill from outside at a random moment, one inside a handler between its business write and
  // its commit (the case transactional completion exists for: rolled back, then taken over).
  serverKills: [
    { at: 0.15, slot: 1, how: 'now' },
    { at: 0.65, slot: 2, how: 'in-handler' },
  ],
  databaseKillAt: 0.4,
};
// Per database: start the server (~2–5 s), the storm, the checks. The default size runs in well under a minute.
const TIMEOUT_MS = bySize({ small: 120_000, full: 120_000, soak: 900_000 });

const scratch = (prefix: string) => mkdtempSync(join(process.env.WI_TMP ?? tmpdir(), prefix));
const first = (list: readonly string[]) =>
  list.length > 5 ? [...list.slice(0, 5), `… ${list.length - 5} more`] : list;

/** The lines of a crashed server's output that say why (the error and where it was emitted). */
function crashReason(output: string): string {
  const lines = output.split('\n').map((l) => l.trim());
  // Not the app's own log lines ("[storm server …] idle pg client error"), the runtime's report.
  const telling = lines.filter(
    (l) =>
      /error|exception|rejection/i.test(l) &&
      !l.startsWith('at ') &&
      !l.startsWith('[storm server'),
  );
  return (telling.length > 0 ? telling.slice(0, 3) : lines.slice(-3)).join(' | ');
}

/** Every figure that must be zero or empty, in one object: a failure shows all of them at once. */
function verdict(report: StormReport) {
  const c = report.counts;
  return {
    faults: report.faults.map((f) => f.what),
    crashes: report.crashes.map(
      (crash) =>
        `server ${crash.slot} exited ${crash.exit} at ${crash.at} ms: ${crashReason(crash.output)}`,
    ),
    other5xx: c.other5xx,
    unexpected: c.unexpected,
    timeouts: c.timeouts,
    gaveUp: c.gaveUp,
    without200: first(report.problems.without200),
    notOneBusinessRow: first(report.problems.notOneBusinessRow),
    notCompleted: first(report.problems.notCompleted),
    mismatchedReplays: first(report.problems.mismatchedReplays),
    tokenNotCommitted: first(report.problems.tokenNotCommitted),
    severalFirstRuns: first(report.problems.severalFirstRuns),
    notTakenOver: report.problems.notTakenOver,
    samples: c.other5xx + c.unexpected + c.timeouts + c.gaveUp > 0 ? c.samples : [],
  };
}

function expectClean(report: StormReport, faults: string[]): void {
  console.log(report.summary);
  expect(verdict(report)).toEqual({
    faults,
    crashes: [],
    other5xx: 0,
    unexpected: 0,
    timeouts: 0,
    gaveUp: 0,
    without200: [],
    notOneBusinessRow: [],
    notCompleted: [],
    mismatchedReplays: [],
    tokenNotCommitted: [],
    severalFirstRuns: [],
    notTakenOver: [],
    samples: [],
  });
  // Both kinds of server committed first runs (the ORM's transaction carried business writes).
  expect(report.committedVia.driver).toBeGreaterThan(0);
  expect(report.committedVia.orm).toBeGreaterThan(0);
  // Every delivery ended with a 200 (nothing gave up), and each id ran to completion at least once.
  expect(report.counts.ok200).toBe(report.counts.deliveries);
  expect(report.counts.ok200 - report.counts.replayed200).toBeLessThanOrEqual(OPTIONS.ids);
  // The kill inside a handler happened, and the storm saw at least that takeover.
  expect(report.killedInHandler).toHaveLength(1);
  expect(report.reruns).toBeGreaterThanOrEqual(1);
}

const SERVER_FAULTS = [
  'SIGKILL server 1 at once + restart',
  'SIGKILL server 2 inside a handler + restart',
];

describe(`storm with crashes: ${OPTIONS.ids * OPTIONS.perId} deliveries over ${OPTIONS.ids} ids, ${OPTIONS.servers.length} Express processes (2 on the driver, 2 on an ORM), transactional`, () => {
  test(
    'PostgreSQL (fsync, synchronous_commit, full_page_writes on), pg Pool + Kysely: killed and restarted once',
    async () => {
      const database = await startDurablePostgres(scratch('storm-pg-'));
      try {
        const target: StormTarget = { dialect: 'postgres', url: database.url, database };
        expectClean(
          await runStorm('postgres', target, OPTIONS),
          withDatabaseFault(SERVER_FAULTS, 'postgres'),
        );
      } finally {
        await database.destroy();
      }
    },
    TIMEOUT_MS,
  );

  test(
    'MariaDB (innodb_flush_log_at_trx_commit=1), mysql2 pool + Prisma over adapter-mariadb: killed and restarted once',
    async () => {
      const database: KillableDatabase = await startDurableMariadb(scratch('storm-mariadb-'));
      try {
        const admin = await mysql.createConnection(database.url);
        await admin.query('CREATE DATABASE storm CHARACTER SET utf8mb4');
        await admin.end();
        const target: StormTarget = { dialect: 'mysql', url: `${database.url}storm`, database };
        expectClean(
          await runStorm('mariadb', target, OPTIONS),
          withDatabaseFault(SERVER_FAULTS, 'mysql'),
        );
      } finally {
        await database.destroy();
      }
    },
    TIMEOUT_MS,
  );

  test(
    'SQLite file (WAL), better-sqlite3 + Drizzle: no database server to kill, servers only',
    async () => {
      const target: StormTarget = {
        dialect: 'sqlite',
        url: join(scratch('storm-sqlite-'), 'storm.db'),
      };
      expectClean(
        await runStorm('sqlite', target, { ...OPTIONS, handlerDelayMs: 0 }),
        SERVER_FAULTS,
      );
    },
    TIMEOUT_MS,
  );
});

/** The faults in the order the storm injects them (server 1 at 15 %, database at 40 %, server 2 at 65 %). */
function withDatabaseFault(servers: string[], kind: string): string[] {
  return [servers[0]!, `SIGKILL ${kind} + restart`, servers[1]!];
}

// The Redis store: the same plan, four Express processes (two on ioredis, two on node-redis), not
// transactional (the store has no transactions): each handler run writes one row to an effect
// ledger beside the run (a SQLite file, independent of Redis), with its attempt and a token.
const REDIS_OPTIONS: RedisStormOptions = {
  ...OPTIONS,
  servers: ['ioredis', 'ioredis', 'node-redis', 'node-redis'],
  // Redis stays down longer than a store call waits for it: calls meet the outage and fail (503),
  // and runs that finished meanwhile could not record their result (taken over, run again).
  commandTimeoutMs: 1_000,
  redisKillAt: OPTIONS.databaseKillAt,
  redisDownMs: 2_500,
};

describe(`Redis storm with crashes: ${REDIS_OPTIONS.ids * REDIS_OPTIONS.perId} deliveries over ${REDIS_OPTIONS.ids} ids, 4 Express processes (2 on ioredis, 2 on node-redis)`, () => {
  test(
    'redis-server (AOF, appendfsync always): killed and restarted once; 0 lost, 0 double, 0 crashes',
    async () => {
      const dir = scratch('storm-redis-');
      const redis = await startDurableRedis(join(dir, 'redis'));
      let report: RedisStormReport;
      try {
        report = await runRedisStorm(redis, dir, REDIS_OPTIONS);
      } finally {
        await redis.destroy();
      }
      console.log(report.summary);
      const c = report.counts;
      expect({
        faults: report.faults.map((f) => f.what),
        crashes: report.crashes.map(
          (crash) =>
            `server ${crash.slot} exited ${crash.exit} at ${crash.at} ms: ${crashReason(crash.output)}`,
        ),
        other5xx: c.other5xx,
        unexpected: c.unexpected,
        timeouts: c.timeouts,
        gaveUp: c.gaveUp,
        ...Object.fromEntries(Object.entries(report.problems).map(([k, v]) => [k, first(v)])),
        samples: c.other5xx + c.unexpected + c.timeouts + c.gaveUp > 0 ? c.samples : [],
      }).toEqual({
        faults: [SERVER_FAULTS[0], 'SIGKILL redis + restart', SERVER_FAULTS[1]],
        crashes: [],
        other5xx: 0,
        unexpected: 0,
        timeouts: 0,
        gaveUp: 0,
        without200: [],
        notCompleted: [],
        answerNotRecorded: [],
        runsOfOneClaim: [],
        runPastReceipt: [],
        severalFirstRuns: [],
        mismatchedReplays: [],
        notTakenOver: [],
        samples: [],
      });
      // Both clients recorded first answers; every delivery ended with a 200.
      expect(report.committedVia.ioredis).toBeGreaterThan(0);
      expect(report.committedVia['node-redis']).toBeGreaterThan(0);
      expect(c.ok200).toBe(c.deliveries);
      // The outage was felt: the guard answered store failures while Redis was down.
      expect(c.s503).toBeGreaterThan(0);
      expect(report.killedInHandler).toHaveLength(1);
      // The run killed after its effect ran again (the store is not transactional): at least one rerun.
      expect(report.reruns).toBeGreaterThanOrEqual(1);
    },
    TIMEOUT_MS,
  );
});
