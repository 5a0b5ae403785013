/**
 * @module One storm against a DynamoDB store: starts the app servers (two on a `DynamoDBClient`,
 * two on a `DynamoDBDocumentClient`), sends the deliveries while SIGKILLing servers and taking
 * the DynamoDB-compatible server away at set points of the run (./dynamodb-faults.ts says how and
 * why for each server), then reads the receipts (through the store)
 * and the effects back and sums up what every delivery id got.
 *
 * Without transactions (dynalite) the effect is a ledger row written before the receipt: a run
 * whose result could not be recorded is taken over and runs again, under a new attempt; what must
 * never happen is two runs under one claim, a receipt lost, or an id answered twice by a handler
 * run. In transactional mode (DynamoDB Local) the effect is an item written in the receipt's own
 * `TransactWriteItems`: every id must have exactly one effect, the one its receipt and its answer name.
 */
import { join } from 'node:path';
import {
  CreateTableCommand,
  DynamoDBClient,
  paginateScan,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';
import type { ObservedReceipt } from '@webhook-idempotency/core';
import { DynamoDBStore, receiptsTable } from '@webhook-idempotency/dynamodb';
import type { DynamoServer } from '@webhook-idempotency/test-support/dynamodb';
import Database from 'better-sqlite3';
import { type IdRecord, sendStorm, stormId, type StormCounts, type StormPlan } from './client';
import { type AppCrash, startCluster } from './cluster';
import {
  type DynamoStormConnection,
  type DynamoStormEffects,
  type DynamoStormServerConfig,
  STORM_PROVIDER,
} from './config';
import { FaultProxy } from '../fault-proxy';
import { type DynamoFaultPlan, faultSteps, storeFault } from './dynamodb-faults';
import { type InjectedFault, scheduleFaults } from './faults';

const SERVER = join(__dirname, 'dynamodb-server.ts');

/** Size and faults of a DynamoDB storm. */
export interface DynamoStormOptions extends StormPlan, DynamoFaultPlan {
  /** One entry per app server process: the client it gives the store. */
  readonly servers: readonly DynamoStormConnection[];
  /** Transactional completion, the effect an item of the receipt's transaction (the server must have transactions). */
  readonly transactional: boolean;
  readonly staleAfterSeconds: number;
  /** The store's `requestTimeoutMs` (the plan's own `requestTimeoutMs` is the provider's HTTP timeout). */
  readonly storeTimeoutMs: number;
  readonly handlerDelayMs: number;
}

/** What a DynamoDB storm found: every list must be empty, and `crashes` too, for it to pass. */
export interface DynamoStormReport {
  readonly counts: StormCounts;
  readonly faults: readonly InjectedFault[];
  readonly crashes: readonly AppCrash[];
  /** Handler runs beyond one per id (without transactions: runs not recorded, taken over, run again). */
  readonly reruns: number;
  readonly problems: {
    readonly without200: string[];
    readonly notCompleted: string[];
    readonly answerNotRecorded: string[];
    readonly runsOfOneClaim: string[];
    readonly runPastReceipt: string[];
    readonly severalFirstRuns: string[];
    readonly mismatchedReplays: string[];
    readonly notTakenOver: string[];
    /** Transactional mode: an id whose effects are not exactly one. */
    readonly effectsNotOnce: string[];
  };
  readonly killedInHandler: readonly string[];
  readonly committedVia: Readonly<Record<DynamoStormConnection, number>>;
  readonly summary: string;
}

interface EffectRow {
  event_id: string;
  attempts: number;
  token: string;
}

/** What the traffic and the faults left, before it is read back. */
interface RunResult {
  readonly traffic: Awaited<ReturnType<typeof sendStorm>>;
  readonly faults: readonly InjectedFault[];
  readonly crashes: readonly AppCrash[];
  readonly killedInHandler: readonly string[];
}

const TABLES = { receipts: 'storm_receipts', effects: 'storm_effects' };

/** Runs one storm on `server` (a ledger, when there is one, in `dir`) and reports what it found. */
export async function runDynamoStorm(
  server: DynamoServer,
  dir: string,
  options: DynamoStormOptions,
): Promise<DynamoStormReport> {
  const effects: DynamoStormEffects = options.transactional
    ? { kind: 'table', table: TABLES.effects }
    : { kind: 'ledger', file: join(dir, 'ledger.db') };
  await prepare(server, effects);
  const proxy =
    options.storeFault === 'unreachable'
      ? await FaultProxy.start({ host: '127.0.0.1', port: server.port })
      : undefined;
  try {
    return await runThrough(server, proxy, effects, options);
  } finally {
    await proxy?.close();
  }
}

/** The storm itself, the app servers reaching the DynamoDB server directly or through `proxy`. */
async function runThrough(
  server: DynamoServer,
  proxy: FaultProxy | undefined,
  effects: DynamoStormEffects,
  options: DynamoStormOptions,
): Promise<DynamoStormReport> {
  const cluster = await startCluster<DynamoStormServerConfig>(
    {
      endpoint: proxy ? proxy.urlFor(server.url).replace(/\/$/, '') : server.url,
      table: TABLES.receipts,
      staleAfterSeconds: options.staleAfterSeconds,
      requestTimeoutMs: options.storeTimeoutMs,
      effects,
      handlerDelayMs: options.handlerDelayMs,
    },
    options.servers,
    SERVER,
  );
  const killedInHandler: string[] = [];
  const steps = faultSteps(cluster, storeFault(server, proxy, options), options, killedInHandler);
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
  const ids = Array.from({ length: options.ids }, (_, n) => stormId(n));
  const { receipts, rows } = await readBack(server, effects, ids);
  return report(
    options,
    { traffic, faults: schedule.faults, crashes: cluster.crashes, killedInHandler },
    receipts,
    rows,
  );
}

function clientOf(server: DynamoServer): DynamoDBClient {
  return new DynamoDBClient({
    endpoint: server.url,
    region: 'us-east-1',
    credentials: { accessKeyId: 'storm', secretAccessKey: 'storm' },
  });
}

/** The receipts table, and the effects' table or ledger. */
async function prepare(server: DynamoServer, effects: DynamoStormEffects): Promise<void> {
  const client = clientOf(server);
  try {
    const tables = effects.kind === 'table' ? [TABLES.receipts, effects.table] : [TABLES.receipts];
    for (const name of tables) {
      await client.send(new CreateTableCommand(receiptsTable(name).create));
      await waitUntilTableExists({ client, maxWaitTime: 60 }, { TableName: name });
    }
  } finally {
    client.destroy();
  }
  if (effects.kind === 'ledger') {
    const ledger = new Database(effects.file, { timeout: 10_000 });
    ledger.pragma('journal_mode = WAL');
    ledger.exec(
      'CREATE TABLE ledger (seq INTEGER PRIMARY KEY AUTOINCREMENT, event_id TEXT NOT NULL, attempts INTEGER NOT NULL, token TEXT NOT NULL, pid INTEGER NOT NULL, via TEXT NOT NULL)',
    );
    ledger.close();
  }
}

/** What the run left: the receipt of each id (read through the store) and every effect. */
async function readBack(
  server: DynamoServer,
  effects: DynamoStormEffects,
  ids: readonly string[],
): Promise<{ receipts: Map<string, ObservedReceipt | null>; rows: EffectRow[] }> {
  const client = clientOf(server);
  try {
    const store = new DynamoDBStore(client, { table: TABLES.receipts, transactions: false });
    const receipts = new Map<string, ObservedReceipt | null>();
    for (let at = 0; at < ids.length; at += 50)
      for (const [id, receipt] of await Promise.all(
        ids.slice(at, at + 50).map(async (id) => {
          const key = { provider: STORM_PROVIDER, externalId: id };
          return [id, await store.find(key, { now: Date.now() })] as const;
        }),
      ))
        receipts.set(id, receipt);
    if (effects.kind === 'ledger') {
      const db = new Database(effects.file, { timeout: 10_000 });
      const rows = db.prepare('SELECT event_id, attempts, token FROM ledger').all() as EffectRow[];
      db.close();
      return { receipts, rows };
    }
    const rows: EffectRow[] = [];
    for await (const page of paginateScan(
      { client },
      { TableName: effects.table, ConsistentRead: true },
    ))
      for (const item of page.Items ?? [])
        rows.push({
          event_id: item.event_id!.S!,
          attempts: Number(item.attempts!.N),
          token: item.token!.S!,
        });
    return { receipts, rows };
  } finally {
    client.destroy();
  }
}

/** What one id got, checked: a lost or doubled delivery lands in `problems`. */
function checkId(
  id: string,
  seen: IdRecord | undefined,
  receipt: ObservedReceipt | null | undefined,
  runs: readonly EffectRow[],
  problems: DynamoStormReport['problems'],
  transactional: boolean,
): DynamoStormConnection | undefined {
  if (!seen?.first) problems.without200.push(id);
  if (receipt?.status !== 'completed')
    problems.notCompleted.push(`${id} (${receipt?.status ?? 'no receipt'})`);
  if (seen && seen.mismatches > 0) problems.mismatchedReplays.push(`${id} (${seen.mismatches})`);
  if (seen && seen.firstRuns > 1) problems.severalFirstRuns.push(`${id} (${seen.firstRuns})`);
  const attempts = runs.map((r) => r.attempts);
  if (new Set(attempts).size !== attempts.length)
    problems.runsOfOneClaim.push(`${id} (attempts ${attempts.join(', ')})`);
  if (transactional && runs.length !== 1)
    problems.effectsNotOnce.push(`${id} (${runs.length} effects)`);
  if (receipt && attempts.some((a) => a > receipt.attempts))
    problems.runPastReceipt.push(
      `${id} (runs ${attempts.join(', ')}, receipt ${receipt.attempts})`,
    );
  if (!seen?.first || !receipt) return undefined;
  const { token, via } = JSON.parse(seen.first.toString('utf8')) as {
    token?: string;
    via?: DynamoStormConnection;
  };
  if (!runs.some((r) => r.attempts === receipt.attempts && r.token === token))
    problems.answerNotRecorded.push(
      `${id} (answered ${token}, receipt attempt ${receipt.attempts})`,
    );
  return via;
}

/** Checks every id against what the run left. */
function report(
  options: DynamoStormOptions,
  run: RunResult,
  receipts: Map<string, ObservedReceipt | null>,
  rows: readonly EffectRow[],
): DynamoStormReport {
  const runsOf = new Map<string, EffectRow[]>();
  for (const row of rows) runsOf.set(row.event_id, [...(runsOf.get(row.event_id) ?? []), row]);
  const problems: DynamoStormReport['problems'] = {
    without200: [],
    notCompleted: [],
    answerNotRecorded: [],
    runsOfOneClaim: [],
    runPastReceipt: [],
    severalFirstRuns: [],
    mismatchedReplays: [],
    notTakenOver: [],
    effectsNotOnce: [],
  };
  const committedVia: Record<DynamoStormConnection, number> = { client: 0, 'document client': 0 };
  for (const id of run.killedInHandler)
    if (!((receipts.get(id)?.attempts ?? 0) >= 2))
      problems.notTakenOver.push(`${id} (attempts ${receipts.get(id)?.attempts})`);
  for (const id of Array.from({ length: options.ids }, (_, n) => stormId(n))) {
    const seen = run.traffic.perId.get(id);
    const via = checkId(
      id,
      seen,
      receipts.get(id),
      runsOf.get(id) ?? [],
      problems,
      options.transactional,
    );
    if (via) committedVia[via]++;
  }
  const reruns = rows.length - runsOf.size;
  const c = run.traffic.counts;
  const summary = summarize(options, run, committedVia, rows.length, reruns);
  return {
    counts: c,
    faults: run.faults,
    crashes: run.crashes,
    reruns,
    problems,
    killedInHandler: run.killedInHandler,
    committedVia,
    summary,
  };
}

/** The storm's one line for the log. */
function summarize(
  options: DynamoStormOptions,
  run: RunResult,
  committedVia: Readonly<Record<DynamoStormConnection, number>>,
  effects: number,
  reruns: number,
): string {
  const c = run.traffic.counts;
  return (
    `storm dynamodb (${options.transactional ? "transactional, effects in the receipt's TransactWriteItems" : 'no transactions, effects in a SQLite ledger'}): ` +
    `first answers recorded by client servers ${committedVia.client} / document client servers ${committedVia['document client']}, ` +
    `${c.deliveries} deliveries, ${options.ids} ids, 200s ${c.ok200} (replays ${c.replayed200}), ` +
    `409s ${c.s409}, 503s ${c.s503}, other 5xx ${c.other5xx}, unexpected ${c.unexpected}, ` +
    `retries ${c.retries}, conn errors ${c.connectionErrors}, timeouts ${c.timeouts}, gave up ${c.gaveUp}, ` +
    `crashes ${run.crashes.length}, effects ${effects} (reruns ${reruns}), ` +
    `faults ${run.faults.map((f) => `${f.what} (${f.tookMs} ms)`).join('; ')} (killed in handler: ${run.killedInHandler.join(', ') || 'none'}), ` +
    `duration ${(run.traffic.durationMs / 1000).toFixed(1)} s (down ${options.storeDownMs} ms + restart, stale ${options.staleAfterSeconds} s, store requestTimeoutMs ${options.storeTimeoutMs})`
  );
}
