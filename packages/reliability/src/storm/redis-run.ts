/**
 * @module One storm against a Redis store: starts the app servers (ioredis and node-redis), sends
 * the deliveries while SIGKILLing servers and the Redis server at set points of the run, then
 * reads the receipts (through the store) and the effect ledger back and sums up what every
 * delivery id got. The store is not transactional: a run whose result could not be recorded (its
 * server killed, Redis down when it finished) is taken over and runs again, under a new attempt.
 * What must never happen is two runs under one claim, a receipt lost, or an id answered twice by
 * a handler run.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import Redis from 'ioredis';
import type { ObservedReceipt } from '@webhook-idempotency/core';
import { RedisStore } from '@webhook-idempotency/redis';
import type { KillableRedis } from '@webhook-idempotency/test-support/durable-redis';
import { type IdRecord, sendStorm, stormId, type StormCounts, type StormPlan } from './client';
import { startCluster, type AppCrash } from './cluster';
import { type RedisStormConnection, type RedisStormServerConfig, STORM_PROVIDER } from './config';
import { type InjectedFault, scheduleFaults, serverKillSteps } from './faults';

const SERVER = join(__dirname, 'redis-server.ts');
const PREFIX = 'storm:';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Size and faults of a Redis storm. */
export interface RedisStormOptions extends StormPlan {
  /** One entry per app server process: the client it reaches Redis with. */
  readonly servers: readonly RedisStormConnection[];
  readonly staleAfterSeconds: number;
  readonly commandTimeoutMs: number;
  readonly handlerDelayMs: number;
  /** Server SIGKILLs, as in the SQL storms: `now` from outside, `in-handler` after the effect. */
  readonly serverKills: ReadonlyArray<{
    readonly at: number;
    readonly slot: number;
    readonly how: 'now' | 'in-handler';
  }>;
  /** Fraction of finished deliveries at which Redis is SIGKILLed and restarted. */
  readonly redisKillAt: number;
  /** How long Redis stays down: longer than `commandTimeoutMs`, so that calls fail meanwhile. */
  readonly redisDownMs: number;
}

/** What a Redis storm found: every list must be empty, and `crashes` too, for it to pass. */
export interface RedisStormReport {
  readonly counts: StormCounts;
  readonly durationMs: number;
  readonly faults: readonly InjectedFault[];
  readonly crashes: readonly AppCrash[];
  /** Handler runs beyond one per id: runs whose result was not recorded, taken over and run again. */
  readonly reruns: number;
  readonly problems: {
    /** Lost: no 200, receipt not `completed`, or the answer is not the recorded run's effect. */
    readonly without200: string[];
    readonly notCompleted: string[];
    readonly answerNotRecorded: string[];
    /** Double: two effects under one claim (id, attempt), a run past the receipt's attempt, two first answers. */
    readonly runsOfOneClaim: string[];
    readonly runPastReceipt: string[];
    readonly severalFirstRuns: string[];
    readonly mismatchedReplays: string[];
    /** Ids whose handler was killed after its effect and whose receipt does not show a second attempt. */
    readonly notTakenOver: string[];
  };
  readonly killedInHandler: readonly string[];
  /** Ids whose recorded first answer came from a server of each client. */
  readonly committedVia: Readonly<Record<RedisStormConnection, number>>;
  readonly summary: string;
}

interface LedgerRow {
  event_id: string;
  attempts: number;
  token: string;
}

function openLedger(file: string): Database.Database {
  const db = new Database(file, { timeout: 10_000 });
  db.pragma('journal_mode = WAL');
  return db;
}

/** Runs one storm on `redis` (its ledger in `dir`) and reports what it found (the test asserts). */
export async function runRedisStorm(
  redis: KillableRedis,
  dir: string,
  options: RedisStormOptions,
): Promise<RedisStormReport> {
  const ledger = join(dir, 'ledger.db');
  const setup = openLedger(ledger);
  setup.exec(
    'CREATE TABLE ledger (seq INTEGER PRIMARY KEY AUTOINCREMENT, event_id TEXT NOT NULL, attempts INTEGER NOT NULL, token TEXT NOT NULL, pid INTEGER NOT NULL, via TEXT NOT NULL)',
  );
  setup.close();
  const cluster = await startCluster<RedisStormServerConfig>(
    {
      redisUrl: redis.url,
      prefix: PREFIX,
      staleAfterSeconds: options.staleAfterSeconds,
      commandTimeoutMs: options.commandTimeoutMs,
      ledger,
      handlerDelayMs: options.handlerDelayMs,
    },
    options.servers,
    SERVER,
  );
  const killedInHandler: string[] = [];
  const steps = serverKillSteps(cluster, options.serverKills, killedInHandler);
  steps.push({
    at: options.redisKillAt,
    what: 'SIGKILL redis + restart',
    run: async (began) => {
      began();
      await redis.kill();
      await sleep(options.redisDownMs);
      await redis.start();
    },
  });
  const schedule = scheduleFaults(steps, options.ids * options.perId);
  let traffic: Awaited<ReturnType<typeof sendStorm>>;
  try {
    traffic = await sendStorm(cluster.ports, options, schedule.progress, schedule.hold);
    await schedule.end();
    if (schedule.failure) throw schedule.failure.error;
    await cluster.settle();
  } finally {
    await schedule.end();
    await cluster.stop();
  }
  return report(redis, ledger, options, {
    traffic,
    faults: schedule.faults,
    crashes: cluster.crashes,
    killedInHandler,
  });
}

/** What the run left: the receipt of each id (read through the store) and the ledger's runs. */
async function readBack(
  redis: KillableRedis,
  ledgerFile: string,
  ids: readonly string[],
): Promise<{ receipts: Map<string, ObservedReceipt | null>; rows: LedgerRow[] }> {
  const client = new Redis(redis.url);
  try {
    const store = new RedisStore(client, { prefix: PREFIX });
    const find = (id: string) =>
      store.find({ provider: STORM_PROVIDER, externalId: id }, { now: Date.now() });
    const receipts = new Map(
      await Promise.all(ids.map(async (id) => [id, await find(id)] as const)),
    );
    const db = openLedger(ledgerFile);
    const rows = db.prepare('SELECT event_id, attempts, token FROM ledger').all() as LedgerRow[];
    db.close();
    return { receipts, rows };
  } finally {
    client.disconnect();
  }
}

/** What one id got, checked: a lost or doubled delivery lands in `problems`. */
function checkId(
  id: string,
  seen: IdRecord | undefined,
  receipt: ObservedReceipt | null | undefined,
  runs: readonly LedgerRow[],
  problems: RedisStormReport['problems'],
): RedisStormConnection | undefined {
  if (!seen?.first) problems.without200.push(id);
  if (receipt?.status !== 'completed')
    problems.notCompleted.push(`${id} (${receipt?.status ?? 'no receipt'})`);
  if (seen && seen.mismatches > 0) problems.mismatchedReplays.push(`${id} (${seen.mismatches})`);
  if (seen && seen.firstRuns > 1) problems.severalFirstRuns.push(`${id} (${seen.firstRuns})`);
  const attempts = runs.map((r) => r.attempts);
  if (new Set(attempts).size !== attempts.length)
    problems.runsOfOneClaim.push(`${id} (attempts ${attempts.join(', ')})`);
  if (receipt && attempts.some((a) => a > receipt.attempts))
    problems.runPastReceipt.push(
      `${id} (runs ${attempts.join(', ')}, receipt ${receipt.attempts})`,
    );
  if (!seen?.first || !receipt) return undefined;
  const { token, via } = JSON.parse(seen.first.toString('utf8')) as {
    token?: string;
    via?: RedisStormConnection;
  };
  if (!runs.some((r) => r.attempts === receipt.attempts && r.token === token))
    problems.answerNotRecorded.push(
      `${id} (answered ${token}, receipt attempt ${receipt.attempts})`,
    );
  return via;
}

/** Reads the receipts and the ledger back and checks every id. */
async function report(
  redis: KillableRedis,
  ledgerFile: string,
  options: RedisStormOptions,
  run: {
    traffic: Awaited<ReturnType<typeof sendStorm>>;
    faults: readonly InjectedFault[];
    crashes: readonly AppCrash[];
    killedInHandler: readonly string[];
  },
): Promise<RedisStormReport> {
  const ids = Array.from({ length: options.ids }, (_, n) => stormId(n));
  const { receipts, rows } = await readBack(redis, ledgerFile, ids);
  const runsOf = new Map<string, LedgerRow[]>();
  for (const row of rows) runsOf.set(row.event_id, [...(runsOf.get(row.event_id) ?? []), row]);
  const problems: RedisStormReport['problems'] = {
    without200: [],
    notCompleted: [],
    answerNotRecorded: [],
    runsOfOneClaim: [],
    runPastReceipt: [],
    severalFirstRuns: [],
    mismatchedReplays: [],
    notTakenOver: [],
  };
  const committedVia: Record<RedisStormConnection, number> = { ioredis: 0, 'node-redis': 0 };
  for (const id of run.killedInHandler)
    if (!((receipts.get(id)?.attempts ?? 0) >= 2))
      problems.notTakenOver.push(`${id} (attempts ${receipts.get(id)?.attempts})`);
  for (const id of ids) {
    const via = checkId(
      id,
      run.traffic.perId.get(id),
      receipts.get(id),
      runsOf.get(id) ?? [],
      problems,
    );
    if (via) committedVia[via]++;
  }
  const reruns = rows.length - runsOf.size;
  const c = run.traffic.counts;
  const summary =
    `storm redis: servers ${options.servers.join(' + ')}, first answers recorded by ioredis servers ${committedVia.ioredis} / node-redis servers ${committedVia['node-redis']}, ` +
    `${c.deliveries} deliveries, ${options.ids} ids, 200s ${c.ok200} (replays ${c.replayed200}), ` +
    `409s ${c.s409}, 503s ${c.s503}, other 5xx ${c.other5xx}, unexpected ${c.unexpected}, ` +
    `retries ${c.retries}, conn errors ${c.connectionErrors}, timeouts ${c.timeouts}, gave up ${c.gaveUp}, ` +
    `crashes ${run.crashes.length}, handler runs ${rows.length} (reruns after an unrecorded run ${reruns}), ` +
    `faults ${run.faults.map((f) => `${f.what} (${f.tookMs} ms)`).join('; ')} (killed in handler: ${run.killedInHandler.join(', ') || 'none'}), ` +
    `duration ${(run.traffic.durationMs / 1000).toFixed(1)} s (AOF appendfsync always, Redis down ${options.redisDownMs} ms, stale ${options.staleAfterSeconds} s, commandTimeoutMs ${options.commandTimeoutMs})`;
  return {
    counts: c,
    durationMs: run.traffic.durationMs,
    faults: run.faults,
    crashes: run.crashes,
    reruns,
    problems,
    killedInHandler: run.killedInHandler,
    committedVia,
    summary,
  };
}
