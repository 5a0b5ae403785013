/**
 * @module One outbox storm against one database: creates the receipts, outbox and business
 * tables, starts the receivers, the handler servers and the dispatchers, sends the events'
 * deliveries while killing handlers, dispatchers and the database at set points of the run,
 * waits until the outbox has sent everything it holds, then reads the database back and sets it
 * against what the receivers counted, message by message and key by key.
 */
import { join } from 'node:path';
import { OutboxSchema, Schema } from '@webhook-idempotency/sql';
import { sendStorm, type StormPlan } from '../storm/client';
import { type Cluster, startCluster } from '../storm/cluster';
import { STORM_PROVIDER } from '../storm/config';
import { type InjectedFault, scheduleFaults } from '../storm/faults';
import { EFFECTS, EFFECTS_DDL, openAdmin, type Rows, type StormTarget } from '../storm/run';
import {
  type DispatcherDeath,
  DOOMED_REFUSAL,
  type OutboxDispatcherConfig,
  type OutboxHandlerConfig,
  type OutboxStormConnection,
} from './config';
import { type Death, judge, type OutboxStormReport } from './judge';
import { describeCrash, killSteps, settled, sleep, until } from './kills';
import { type ReceiverOptions, startReceivers } from './receivers';

export type { Death, OutboxStormFigures, OutboxStormReport } from './judge';
export { killName } from './kills';

const HANDLER = join(__dirname, 'handler-server.ts');
const DISPATCHER = join(__dirname, 'dispatcher.ts');
const OUTBOX_TABLE = 'webhook_outbox';

/** A dispatcher SIGKILLed from outside (`now`) or inside its next send (see {@link DispatcherDeath}); restarted at once. */
export interface DispatcherKill {
  readonly at: number;
  readonly slot: number;
  readonly how: 'now' | DispatcherDeath;
}

/** Size, pacing and faults of an outbox storm. */
export interface OutboxStormOptions extends StormPlan {
  /** Handler server processes. */
  readonly handlers: number;
  /** Dispatcher processes. */
  readonly dispatchers: number;
  /** Every `failEvery`-th event's handler records its messages, then throws, on every delivery. */
  readonly failEvery: number;
  readonly staleAfterSeconds: number;
  /** Connections in each process's pool. */
  readonly poolSize: number;
  /** Milliseconds a handler stays in its transaction after recording its messages. */
  readonly handlerDelayMs: number;
  /** The dispatchers' pacing (the same for each). */
  readonly dispatcher: Pick<
    OutboxDispatcherConfig,
    | 'concurrency'
    | 'pollIntervalMs'
    | 'visibilityTimeoutSeconds'
    | 'sendTimeoutMs'
    | 'backoffBaseMs'
    | 'backoffMaxMs'
    | 'maxFailures'
  >;
  readonly receivers: ReceiverOptions;
  /** Handler server kills, at fractions of the finished deliveries (`in-handler`: after the direct call and the recorded messages, before the commit). */
  readonly handlerKills: ReadonlyArray<{
    readonly at: number;
    readonly slot: number;
    readonly how: 'now' | 'in-handler';
  }>;
  readonly dispatcherKills: readonly DispatcherKill[];
  /** Fraction of the finished deliveries at which the database is SIGKILLed (once an outbox send is in flight) and restarted, when the target has a server. */
  readonly databaseKillAt: number;
  /** How long the outbox may take to send what it holds once the traffic is over. */
  readonly drainTimeoutMs: number;
}

/** Runs one outbox storm against `target` and reports what it found (it does not assert: the test does). */
export async function runOutboxStorm(
  label: string,
  target: StormTarget,
  options: OutboxStormOptions,
): Promise<OutboxStormReport> {
  const started = Date.now();
  const admin = openAdmin(target);
  try {
    await Schema.createTable(admin.db);
    await OutboxSchema.createTable(admin.db);
    await admin.query(EFFECTS_DDL[target.dialect]);
  } finally {
    await admin.close();
  }

  const receivers = await startReceivers(options.receivers);
  const driver = (count: number): OutboxStormConnection[] => Array(count).fill('driver');
  let handlers: Cluster | undefined;
  let dispatchers: Cluster | undefined;
  const deaths: Death[] = [];
  const background = new Map<string, Promise<unknown>>();
  let inFlightAtKill: number | undefined;
  let traffic: Awaited<ReturnType<typeof sendStorm>>;
  let faults: readonly InjectedFault[];
  let drainMs = 0;
  let setupMs = 0;
  const crashes: string[] = [];
  try {
    handlers = await startCluster<OutboxHandlerConfig>(
      {
        dialect: target.dialect,
        url: target.url,
        staleAfterSeconds: options.staleAfterSeconds,
        effects: EFFECTS,
        poolSize: options.poolSize,
        handlerDelayMs: options.handlerDelayMs,
        receiverUrl: receivers.httpUrl,
        failEvery: options.failEvery,
      },
      driver(options.handlers),
      HANDLER,
    );
    dispatchers = await startCluster<OutboxDispatcherConfig>(
      {
        dialect: target.dialect,
        url: target.url,
        smtpPort: receivers.smtpPort,
        poolSize: options.poolSize,
        ...options.dispatcher,
      },
      driver(options.dispatchers),
      DISPATCHER,
    );
    setupMs = Date.now() - started;
    const total = options.ids * options.perId;
    const steps = [
      ...killSteps('handler', handlers, options.handlerKills, deaths, background),
      ...killSteps('dispatcher', dispatchers, options.dispatcherKills, deaths, background),
    ];
    const { database } = target;
    if (database)
      steps.push({
        at: options.databaseKillAt,
        what: `SIGKILL ${database.kind} mid-dispatch + restart`,
        run: async (began) => {
          began();
          // The held deliveries go out now. A handler told to die in a run dies in one of them
          // first: with the database down they would meet 503s before any run, and the last fresh
          // events could be gone before it is back (CI: 'ran no handler within 30000 ms').
          await settled(background, 'handler');
          // Mid-dispatch: a send is being answered (its dispatcher then marks it done on a dead
          // database). A dispatcher killed before may still be on its way back.
          await settled(background, 'dispatcher');
          await until(() => receivers.dispatchesInFlight > 0, 30_000);
          inFlightAtKill = receivers.dispatchesInFlight;
          await database.kill();
          await sleep(200);
          await database.start();
        },
      });
    const schedule = scheduleFaults(steps, total);
    faults = schedule.faults;
    // WI_STORM_DEBUG=1: a progress line every 2 s on stderr (jest holds console output until the test ends).
    const ticker =
      process.env.WI_STORM_DEBUG === '1'
        ? setInterval(() => {
            const arrived = [...receivers.messages.values()].reduce((n, t) => n + t.requests, 0);
            process.stderr.write(
              `[outbox storm ${label}] ${((Date.now() - started) / 1000).toFixed(1)} s: ${schedule.finished}/${total} deliveries, ${arrived} arrivals, faults: ${faults.map((f) => f.what).join('; ')}; deaths: ${deaths.map((d) => d.what).join('; ')}\n`,
            );
          }, 2_000)
        : undefined;
    try {
      traffic = await sendStorm(
        handlers.ports,
        { ...options, refusal: DOOMED_REFUSAL },
        schedule.progress,
        schedule.hold,
      );
      await schedule.end();
      if (schedule.failure) throw schedule.failure.error;
      // A dispatcher told to die may still be on its way (waiting for a send: the outbox still
      // holds messages, so it gets one), or restarting: the drain needs it back. A handler's
      // restart ends during the drain.
      await settled(background, 'dispatcher');
      await dispatchers.settle();
    } finally {
      clearInterval(ticker);
      await schedule.end();
    }
    // The traffic is over: the dispatchers send what the outbox still holds (leases of killed
    // dispatchers run out, retries come due).
    const drainStarted = Date.now();
    const watch = openAdmin(target);
    try {
      for (;;) {
        const [row] = await watch.query(
          `SELECT COUNT(*) AS unsent FROM ${OUTBOX_TABLE} WHERE status IN ('pending', 'processing')`,
        );
        if (Number(row?.unsent) === 0 || Date.now() - drainStarted > options.drainTimeoutMs) break;
        await sleep(200);
      }
    } finally {
      await watch.close();
    }
    drainMs = Date.now() - drainStarted;
    await settled(background, 'handler');
    await handlers.settle();
  } finally {
    await handlers?.stop();
    await dispatchers?.stop();
    for (const crash of handlers?.crashes ?? []) crashes.push(describeCrash('handler', crash));
    for (const crash of dispatchers?.crashes ?? [])
      crashes.push(describeCrash('dispatcher', crash));
    if (process.env.WI_STORM_DEBUG === '1')
      for (const crash of [...(handlers?.crashes ?? []), ...(dispatchers?.crashes ?? [])])
        process.stderr.write(
          `[outbox storm ${label}] crash of slot ${crash.slot}:\n${crash.output}\n`,
        );
    await receivers.close();
  }

  // Read back what the database kept.
  const check = openAdmin(target);
  let receipts: Rows;
  let effects: Rows;
  let outboxRows: Rows;
  try {
    receipts = await check.query(
      'SELECT external_id, status, attempts FROM webhook_receipts WHERE provider = ?',
      [STORM_PROVIDER],
    );
    effects = await check.query(`SELECT event_id FROM ${EFFECTS}`);
    outboxRows = await check.query(
      `SELECT provider, external_id, status, attempts, failures, last_error FROM ${OUTBOX_TABLE}`,
    );
  } finally {
    await check.close();
  }
  return judge(label, options, receivers, {
    traffic,
    faults,
    crashes,
    deaths,
    inFlightAtKill,
    setupMs,
    drainMs,
    receipts,
    effects,
    outboxRows,
  });
}
