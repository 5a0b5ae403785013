/**
 * @module The transactional outbox under crashes (issue 43), per database: two Express handler
 * processes over a transactional `SqlStore` take each event's redelivered webhooks; each run writes
 * a business row, calls an HTTP receiver directly under `effectKey('direct')`, and records an
 * HTTP message and an email in the outbox, in its transaction. Dispatcher processes send them
 * with `httpSender` and `emailSender` (nodemailer) to an HTTP and an SMTP server the test started,
 * which count what arrives by key. Every fifth event's handler records its messages and then
 * throws, every time. Meanwhile the test SIGKILLs a handler from outside and one inside a run
 * (after the direct call and the recorded messages, before the commit), a dispatcher as its send
 * starts (messages committed and leased, nothing sent) and after its receiver accepted (before
 * the row is marked done), under `pnpm test:proof` one from outside too, and the database server
 * while a send is in flight (durable settings; SQLite has no server). Afterwards: every committed
 * event's messages reached their receivers (0 lost), every arrival of a message carried its one
 * effect key, none arrived without a key, none of an event whose runs all rolled back ever
 * arrived, one business row per committed event, 0 app crashes, 0 stray 5xx.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import { bySize, PROOF_LANE } from '@webhook-idempotency/test-support/proof-size';
import { startDurableMariadb, startDurablePostgres } from '../src/durable-databases';
import {
  killName,
  type OutboxStormOptions,
  type OutboxStormReport,
  runOutboxStorm,
} from '../src/outbox-storm/run';
import type { StormTarget } from '../src/storm/run';

// pnpm test: 50 events × 3 deliveries, one dispatcher (each kind of kill once, the run short).
// pnpm test:proof: 600 × 3, two dispatchers sharing the table, one of them also killed from
// outside. Soak: 3,000 × 3. The faults are placed at fractions of the deliveries, and the
// deliveries after the last fault's fraction plus 15 % wait until every fault has begun (fresh
// events for the deaths inside a run or a send, and sends in flight for the database's kill).
const SMALL = PROOF_LANE === 'small';
const OPTIONS: OutboxStormOptions = {
  ids: bySize({ small: 50, full: 600, soak: 3_000 }),
  perId: 3,
  inFlight: 8,
  handlers: 2,
  dispatchers: SMALL ? 1 : 2,
  failEvery: 5,
  staleAfterSeconds: 2,
  poolSize: 6,
  // The run stays 10 ms in its transaction after recording its messages: kills meet open transactions.
  handlerDelayMs: 10,
  dispatcher: {
    concurrency: 4,
    pollIntervalMs: 50,
    // Short: a killed dispatcher's leases run out within the run (and its messages are sent again).
    visibilityTimeoutSeconds: 2,
    sendTimeoutMs: 1_500,
    backoffBaseMs: 50,
    backoffMaxMs: 500,
    maxFailures: 50,
  },
  // Each answer takes 15 ms (sends are in flight when a kill lands); the first arrival of every
  // seventh message is refused (503, SMTP 451): retries under the same key in every run.
  receivers: { answerDelayMs: 15, refuseFirstEvery: 7 },
  retryAfterCapMs: 500,
  requestTimeoutMs: 15_000,
  giveUpAfterMs: 60_000,
  seed: 20_261_206,
  // A handler from outside, then one inside a run (told, then the schedule goes on); the
  // dispatcher dying after a receiver accepted, then as a send starts; last the database, while a
  // send is in flight: the held deliveries go out once it has begun, and it waits for the handler
  // told to die in a run to have died (in one of them, the database up), so it meets sends.
  handlerKills: [
    { at: 0.15, slot: 0, how: 'now' },
    { at: 0.35, slot: 1, how: 'in-handler' },
  ],
  dispatcherKills: [
    { at: 0.1, slot: 0, how: 'mid-send' },
    { at: 0.25, slot: SMALL ? 0 : 1, how: 'before-send' },
    ...(SMALL ? [] : [{ at: 0.3, slot: 0, how: 'now' } as const]),
  ],
  databaseKillAt: 0.5,
  drainTimeoutMs: 60_000,
};
const TIMEOUT_MS = bySize({ small: 120_000, full: 300_000, soak: 900_000 });

/** The process kills in the order they happen. */
const PROCESS_FAULTS = [
  ...OPTIONS.handlerKills.map((k) => ({ at: k.at, what: killName('handler', k.slot, k.how) })),
  ...OPTIONS.dispatcherKills.map((k) => ({
    at: k.at,
    what: killName('dispatcher', k.slot, k.how),
  })),
]
  .sort((x, y) => x.at - y.at)
  .map((k) => k.what);
/** The kills inside a run or a send: each must have happened. */
const DEATHS = PROCESS_FAULTS.filter((what) => !what.includes('at once')).sort();

const scratch = (prefix: string) => mkdtempSync(join(process.env.WI_TMP ?? tmpdir(), prefix));
const first = (list: readonly string[]) =>
  list.length > 5 ? [...list.slice(0, 5), `… ${list.length - 5} more`] : list;

function expectClean(report: OutboxStormReport, faults: string[]): void {
  console.log(report.summary);
  const c = report.counts;
  expect({
    faults: report.faults.map((f) => f.what),
    deaths: report.deaths.map((d) => d.what).sort(),
    crashes: report.crashes,
    other5xx: c.other5xx,
    unexpected: c.unexpected,
    timeouts: c.timeouts,
    gaveUp: c.gaveUp,
    withoutKey: report.withoutKey,
    unidentified: report.unidentified,
    messageIdMismatches: report.messageIdMismatches,
    ...Object.fromEntries(Object.entries(report.problems).map(([k, v]) => [k, first(v)])),
    samples: c.other5xx + c.unexpected + c.timeouts + c.gaveUp > 0 ? c.samples : [],
  }).toEqual({
    faults,
    deaths: DEATHS,
    crashes: [],
    other5xx: 0,
    unexpected: 0,
    timeouts: 0,
    gaveUp: 0,
    withoutKey: 0,
    unidentified: 0,
    messageIdMismatches: 0,
    notCompleted: [],
    notFailed: [],
    businessRows: [],
    outboxRows: [],
    lost: [],
    wrongKeys: [],
    sentForRolledBack: [],
    noDirectCall: [],
    notTakenOver: [],
    notResent: [],
    samples: [],
  });
  const f = report.figures;
  // Both kinds of event happened, and every committed message was sent.
  expect(f.failingForGood).toBeGreaterThan(0);
  expect(f.committed).toBeGreaterThan(0);
  expect(f.http.sent).toBe(f.committed);
  expect(f.email.sent).toBe(f.committed);
  // The faults were felt: runs were taken over, messages arrived more than once (under one key).
  expect(f.reruns).toBeGreaterThanOrEqual(1);
  expect(f.http.repeats + f.email.repeats).toBeGreaterThan(0);
  expect(f.direct.repeats).toBeGreaterThan(0);
}

describe(`outbox storm: ${OPTIONS.ids} events × ${OPTIONS.perId} deliveries, ${OPTIONS.handlers} handler and ${OPTIONS.dispatchers} dispatcher processes, HTTP and SMTP receivers counting by key`, () => {
  test(
    'PostgreSQL (fsync, synchronous_commit on): handlers, dispatchers and the database killed mid-dispatch',
    async () => {
      const database = await startDurablePostgres(scratch('outbox-storm-pg-'));
      try {
        const target: StormTarget = { dialect: 'postgres', url: database.url, database };
        const report = await runOutboxStorm('postgres', target, OPTIONS);
        expectClean(report, [...PROCESS_FAULTS, 'SIGKILL postgres mid-dispatch + restart']);
        expect(report.figures.sendsInFlightAtDatabaseKill).toBeGreaterThan(0);
      } finally {
        await database.destroy();
      }
    },
    TIMEOUT_MS,
  );

  test(
    'MariaDB (innodb_flush_log_at_trx_commit=1): handlers, dispatchers and the database killed mid-dispatch',
    async () => {
      const database = await startDurableMariadb(scratch('outbox-storm-mariadb-'));
      try {
        const admin = await mysql.createConnection(database.url);
        await admin.query('CREATE DATABASE outbox_storm CHARACTER SET utf8mb4');
        await admin.end();
        const target: StormTarget = {
          dialect: 'mysql',
          url: `${database.url}outbox_storm`,
          database,
        };
        const report = await runOutboxStorm('mariadb', target, OPTIONS);
        expectClean(report, [...PROCESS_FAULTS, 'SIGKILL mysql mid-dispatch + restart']);
        expect(report.figures.sendsInFlightAtDatabaseKill).toBeGreaterThan(0);
      } finally {
        await database.destroy();
      }
    },
    TIMEOUT_MS,
  );

  test(
    'SQLite file (WAL): handlers and dispatchers killed (no database server to kill)',
    async () => {
      const target: StormTarget = {
        dialect: 'sqlite',
        url: join(scratch('outbox-storm-sqlite-'), 'outbox-storm.db'),
      };
      const report = await runOutboxStorm('sqlite', target, { ...OPTIONS, handlerDelayMs: 0 });
      expectClean(report, PROCESS_FAULTS);
    },
    TIMEOUT_MS,
  );
});
