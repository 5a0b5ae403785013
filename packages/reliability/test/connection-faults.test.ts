/**
 * @module Connection faults (issue 8, "Fault and load proof"): a TCP proxy of our own between the
 * app and PostgreSQL / MariaDB cuts connections at chosen moments (during the claim, at BEGIN,
 * after the handler's business write, during `complete`, at COMMIT), refuses connections for a
 * while, and adds latency. Real requests go through the real Express adapter over a `SqlStore`
 * on a pg Pool / mysql2 pool, in transactional and in plain mode.
 *
 * For every fault: the caller gets 200 with the handler's answer or 409/503 with `Retry-After`
 * (never a 500, never a hang: each request has a short client timeout), the process sees no
 * uncaught exception or unhandled rejection, no pooled connection stays borrowed, and redelivery
 * (once the proxy heals, past the stale threshold where a claim was left behind) ends in 200 with
 * the receipt `completed`. Transactional mode: exactly one business row per id, whatever was cut.
 * Plain mode promises "at most once per claim": business rows never exceed the
 * receipt's `attempts`, and a cut after the business write but before `completed` is recorded
 * runs the handler again after the stale threshold (two rows, attempts 2): the test pins that.
 */
import type { GuardEvent } from '@webhook-idempotency/core';
import type { Cut } from '../src/fault-proxy';
import {
  deliver,
  deliverUntilOk,
  describeDelivery,
  unacceptable,
  type Delivery,
} from '../src/connection-faults-client';
import { watchHostProcess } from '@webhook-idempotency/test-support/host-process';
import {
  createFaultDatabase,
  inspect,
  ORDERS_TABLE,
  RECEIPTS_TABLE,
  startFaultApp,
  type FaultApp,
  type FaultDialect,
  type FaultMode,
  type Inspector,
} from '../src/connection-faults-harness';

const STALE_AFTER_SECONDS = 2;
const ACQUIRE_TIMEOUT_MS = 500;
/**
 * A request not answered within this is a hang. The slowest legitimate answer is the claim's
 * acquire wait (0.5 s) + the transactional handler deadline (staleAfter − 10 % = 1.8 s) + the fail
 * write's acquire wait (0.5 s); statements themselves take milliseconds here.
 */
const REQUEST_TIMEOUT_MS = 4_000;
/** Redelivery must reach a 200 within the stale threshold plus the acquire wait, plus slack for the round trips. */
const SETTLE_DEADLINE_MS = STALE_AFTER_SECONDS * 1000 + ACQUIRE_TIMEOUT_MS + 2_500;
const REDELIVERY_PAUSE_MS = 250;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

// ---- the process must survive: anything unhandled is recorded and fails the case it happened in.
const unhandled = watchHostProcess();

// ---- where to cut: the SQL text is in the bytes of the packet for both wire protocols.
const has = (bytes: Buffer, ...parts: string[]) => parts.every((part) => bytes.includes(part));
const packets = {
  claim: (bytes: Buffer) => has(bytes, 'INSERT INTO', RECEIPTS_TABLE),
  begin: (dialect: FaultDialect) => (bytes: Buffer) =>
    has(bytes, dialect === 'postgres' ? 'BEGIN' : 'START TRANSACTION'),
  business: (bytes: Buffer) => has(bytes, 'INSERT INTO', ORDERS_TABLE),
  complete: (bytes: Buffer) => has(bytes, RECEIPTS_TABLE, "status = 'completed'"),
  commit: (bytes: Buffer) => has(bytes, 'COMMIT'),
};

/** What a case expects in one mode. */
interface Expected {
  /**
   * Status of the first delivery (the one the fault hits). `'handler-error'`: the handler's own
   * write failed and it threw, so the app's error handler answers ("what the
   * framework's own error handling answers"; this app's answers 500 with the error text).
   */
  readonly first: 200 | 503 | 'handler-error';
  /** The receipt right after the first answer, where the design fixes it. */
  readonly receiptAfterFirst?: 'none' | 'failed' | 'completed';
  /** Redeliveries before the stale threshold are told to wait (409 + Retry-After): the first run left a fresh claim. */
  readonly waitsForStale?: boolean;
  /** Business rows for the id at the end. */
  readonly rows: number;
  /** The receipt's `attempts` at the end (handler starts, takeovers included). */
  readonly attempts: number;
}

/** What arming a fault gives back. */
interface Armed {
  /** The cut that must fire, else the case tested nothing. */
  readonly cut?: Cut;
  /** Heals the fault; awaited after the first answer, before redelivery. */
  readonly heal?: () => Promise<void>;
}

interface FaultCase {
  readonly name: string;
  arm(app: FaultApp, dialect: FaultDialect): Promise<Armed>;
  readonly expect: Partial<Record<FaultMode, Expected>>;
}

/** Runs `hook` once, at the first business write after arming. */
function onceAfterWrite(app: FaultApp, hook: () => Promise<void>): void {
  app.afterWrite = async () => {
    app.afterWrite = undefined;
    await hook();
  };
}

const cases: readonly FaultCase[] = [
  {
    name: 'claim INSERT cut before the server sees it',
    arm: async (app) => ({ cut: app.proxy.cutWhen(packets.claim, 'before') }),
    expect: {
      transactional: { first: 503, receiptAfterFirst: 'none', rows: 1, attempts: 1 },
      plain: { first: 503, receiptAfterFirst: 'none', rows: 1, attempts: 1 },
    },
  },
  {
    // The receipt exists (processing, attempts 1) but the app never learned it won: the claim is
    // abandoned and only the stale takeover can move it on.
    name: 'claim INSERT executed, its answer cut',
    arm: async (app) => ({ cut: app.proxy.cutWhen(packets.claim, 'after') }),
    expect: {
      transactional: { first: 503, waitsForStale: true, rows: 1, attempts: 2 },
      plain: { first: 503, waitsForStale: true, rows: 1, attempts: 2 },
    },
  },
  {
    name: 'BEGIN cut',
    arm: async (app, dialect) => ({ cut: app.proxy.cutWhen(packets.begin(dialect), 'before') }),
    expect: { transactional: { first: 503, receiptAfterFirst: 'failed', rows: 1, attempts: 2 } },
  },
  {
    // The handler's own write fails and it throws. Plain: its write went through a connection of
    // its own, a handler error. Transactional: the cut connection is the guard's transaction, so
    // the store reports it lost (its rollback cannot be sent): a store failure, 503. Either way the
    // receipt must be `failed` (retryable at once), not left `processing`.
    name: 'business INSERT cut before the server sees it',
    arm: async (app) => ({ cut: app.proxy.cutWhen(packets.business, 'before') }),
    expect: {
      transactional: { first: 503, receiptAfterFirst: 'failed', rows: 1, attempts: 2 },
      plain: { first: 'handler-error', receiptAfterFirst: 'failed', rows: 1, attempts: 2 },
    },
  },
  {
    // Transactional: the open transaction dies with the business row in it (the pg client is
    // borrowed and idle at that moment). Plain: the row is already committed, and `complete`
    // takes a fresh connection.
    name: 'every connection dropped right after the business write',
    arm: async (app) => {
      onceAfterWrite(app, async () => {
        app.proxy.dropAll();
        await sleep(100);
      });
      return {};
    },
    expect: {
      transactional: { first: 503, receiptAfterFirst: 'failed', rows: 1, attempts: 2 },
      plain: { first: 200, receiptAfterFirst: 'completed', rows: 1, attempts: 1 },
    },
  },
  {
    // Plain mode: the business row is committed, `completed` never written, the claim stays
    // fresh until stale, then the takeover runs the handler again: at most once per claim.
    name: 'complete UPDATE cut before the server sees it',
    arm: async (app) => ({ cut: app.proxy.cutWhen(packets.complete, 'before') }),
    expect: {
      transactional: { first: 503, receiptAfterFirst: 'failed', rows: 1, attempts: 2 },
      plain: { first: 503, waitsForStale: true, rows: 2, attempts: 2 },
    },
  },
  {
    // Plain mode: `completed` is written (autocommit) though the app never heard back.
    // Transactional: the UPDATE ran inside the transaction, which dies uncommitted.
    name: 'complete UPDATE executed, its answer cut',
    arm: async (app) => ({ cut: app.proxy.cutWhen(packets.complete, 'after') }),
    expect: {
      transactional: { first: 503, receiptAfterFirst: 'failed', rows: 1, attempts: 2 },
      plain: { first: 503, receiptAfterFirst: 'completed', rows: 1, attempts: 1 },
    },
  },
  {
    name: 'COMMIT cut before the server sees it',
    arm: async (app) => ({ cut: app.proxy.cutWhen(packets.commit, 'before') }),
    expect: { transactional: { first: 503, receiptAfterFirst: 'failed', rows: 1, attempts: 2 } },
  },
  {
    // The ambiguous commit: the server committed, the app cannot know. Redelivery is a replay.
    name: 'COMMIT executed, its answer cut',
    arm: async (app) => ({ cut: app.proxy.cutWhen(packets.commit, 'after') }),
    expect: { transactional: { first: 503, receiptAfterFirst: 'completed', rows: 1, attempts: 1 } },
  },
  {
    name: 'database unreachable (connections dropped, new ones refused) when the delivery arrives',
    arm: async (app) => {
      await app.proxy.refuse();
      app.proxy.dropAll();
      await sleep(100);
      return { heal: () => app.proxy.accept() };
    },
    expect: {
      transactional: { first: 503, receiptAfterFirst: 'none', rows: 1, attempts: 1 },
      plain: { first: 503, receiptAfterFirst: 'none', rows: 1, attempts: 1 },
    },
  },
  {
    // The outage also defeats the `fail` write: the receipt may stay `processing` until the
    // guard's background retry or the stale takeover; either way redelivery must settle in time.
    name: 'database unreachable for 600 ms from right after the business write',
    arm: async (app) => {
      let healed: Promise<void> = Promise.resolve();
      onceAfterWrite(app, async () => {
        await app.proxy.refuse();
        app.proxy.dropAll();
        healed = sleep(600).then(() => app.proxy.accept());
        await sleep(50);
      });
      return { heal: () => healed };
    },
    expect: {
      transactional: { first: 503, rows: 1, attempts: 2 },
      plain: { first: 503, rows: 2, attempts: 2 },
    },
  },
];

const dialects: readonly FaultDialect[] = ['postgres', 'mysql'];
const urls: Partial<Record<FaultDialect, string>> = {};
const inspectors: Partial<Record<FaultDialect, Inspector>> = {};

beforeAll(async () => {
  for (const dialect of dialects) {
    urls[dialect] = await createFaultDatabase(dialect, 'wi_connection_faults');
    inspectors[dialect] = inspect(dialect, urls[dialect]!);
  }
});
afterAll(async () => {
  for (const dialect of dialects) await inspectors[dialect]?.close();
});

const slug = (text: string) =>
  text
    .replace(/[^a-z0-9]+/gi, '-')
    .replace(/^-|-$/g, '')
    .toLowerCase()
    .slice(0, 60);
const statusOf = (delivery: Delivery) => delivery.status;
const storeErrors = (events: readonly GuardEvent[]) =>
  events
    .filter(
      (event): event is Extract<GuardEvent, { type: 'store-error' }> =>
        event.type === 'store-error',
    )
    .map(
      (event) =>
        `${event.operation}: ${event.error instanceof Error ? event.error.message : String(event.error)}`,
    );

/** Waits until the app's pool has every connection back, at most `ms`; returns how many are still out. */
async function borrowedAfter(app: FaultApp, ms: number): Promise<number> {
  const until = Date.now() + ms;
  while (app.borrowed() > 0 && Date.now() < until) await sleep(25);
  return app.borrowed();
}

describe.each(dialects)('%s behind a fault proxy', (dialect) => {
  describe.each(['transactional', 'plain'] as const)('%s mode', (mode) => {
    let app: FaultApp;
    beforeEach(async () => {
      unhandled.length = 0;
      app = await startFaultApp({
        dialect,
        mode,
        url: urls[dialect]!,
        staleAfterSeconds: STALE_AFTER_SECONDS,
        acquireTimeoutMs: ACQUIRE_TIMEOUT_MS,
      });
    });
    afterEach(async () => {
      await app.close();
      // Anything unhandled while the app shut down (the test body took what came before).
      await sleep(50);
      expect(unhandled.splice(0)).toEqual([]);
    });

    const applicable = cases.filter((c) => c.expect[mode] !== undefined);

    it.each(applicable.map((c) => [c.name, c] as const))('%s', async (_name, faultCase) => {
      const expected = faultCase.expect[mode]!;
      const inspector = inspectors[dialect]!;
      const id = `${dialect}-${mode}-${slug(faultCase.name)}`;
      const problems: string[] = [];

      const armed = await faultCase.arm(app, dialect);
      const first = await deliver(app.baseUrl, id, REQUEST_TIMEOUT_MS);
      if (armed.cut && !armed.cut.hasFired)
        problems.push('the armed cut never fired: this case tested nothing');
      if (expected.first === 'handler-error') {
        // The app's own error handler answered, with the handler's (driver's) error: the guard passed it through.
        if (first.status !== 500 || !('body' in first) || !first.body.startsWith('{"error":')) {
          problems.push(
            `first delivery: expected the app's own error answer, got ${describeDelivery(first)}`,
          );
        }
      } else {
        const firstProblem = unacceptable(first, id);
        if (firstProblem) problems.push(`first delivery: ${firstProblem}`);
        else if (first.status !== expected.first)
          problems.push(
            `first delivery: expected ${expected.first}, got ${describeDelivery(first)}`,
          );
      }

      if (expected.receiptAfterFirst) {
        const receipt = await inspector.receipt(id);
        const status = receipt?.status ?? 'none';
        if (status !== expected.receiptAfterFirst)
          problems.push(
            `receipt after the first answer: expected ${expected.receiptAfterFirst}, got ${status}`,
          );
      }
      await armed.heal?.();

      const started = Date.now();
      const redelivered = await deliverUntilOk(app.baseUrl, id, {
        timeoutMs: REQUEST_TIMEOUT_MS,
        deadlineMs: SETTLE_DEADLINE_MS,
        pauseMs: REDELIVERY_PAUSE_MS,
      });
      const settledMs = Date.now() - started;
      redelivered.forEach((answer, n) => {
        const problem = unacceptable(answer, id);
        if (problem) problems.push(`redelivery ${n + 1}: ${problem}`);
      });
      const last = redelivered[redelivered.length - 1]!;
      if (last.status !== 200)
        problems.push(
          `no 200 within ${SETTLE_DEADLINE_MS} ms of healing; last: ${describeDelivery(last)}`,
        );
      if (expected.waitsForStale && redelivered[0]?.status !== 409) {
        problems.push(
          `the first redelivery should meet the fresh claim (409), got ${describeDelivery(redelivered[0]!)}`,
        );
      }

      // The final state: one receipt, completed; the business rows the mode promises.
      const receipt = await inspector.receipt(id);
      const rows = await inspector.rows(id);
      if (receipt?.status !== 'completed')
        problems.push(`final receipt: expected completed, got ${receipt?.status ?? 'none'}`);
      if (receipt && receipt.attempts !== expected.attempts)
        problems.push(`final attempts: expected ${expected.attempts}, got ${receipt.attempts}`);
      if (rows !== expected.rows)
        problems.push(`business rows: expected ${expected.rows}, got ${rows}`);
      if (mode === 'plain' && receipt && rows > receipt.attempts)
        problems.push(
          `plain mode ran the handler more than once per claim: ${rows} rows, ${receipt.attempts} attempts`,
        );

      // A later duplicate is a byte-identical replay and changes nothing.
      if (last.status === 200) {
        const replay = await deliver(app.baseUrl, id, REQUEST_TIMEOUT_MS);
        if (
          replay.status !== 200 ||
          !('headers' in replay) ||
          replay.headers['idempotent-replayed'] !== 'true' ||
          replay.body !== (last as { body: string }).body
        ) {
          problems.push(
            `replay: expected 200, Idempotent-Replayed and the stored body, got ${describeDelivery(replay)}`,
          );
        }
        if ((await inspector.rows(id)) !== expected.rows)
          problems.push('the replay changed the business rows');
      }

      const stillBorrowed = await borrowedAfter(app, 1000);
      if (stillBorrowed > 0)
        problems.push(
          `${stillBorrowed} pooled connection(s) still borrowed after the case settled`,
        );
      problems.push(...unhandled.splice(0));

      const trace = [
        `first: ${describeDelivery(first)}`,
        `redeliveries (${settledMs} ms): ${redelivered.map(statusOf).join(', ')}`,
        `store errors: ${storeErrors(app.events).join(' || ') || 'none'}`,
      ];
      expect({ problems, trace }).toEqual({ problems: [], trace });
    });

    it('25 ms of latency each way: three concurrent deliveries of one id, then redelivery: one effect, identical replays', async () => {
      const inspector = inspectors[dialect]!;
      const id = `${dialect}-${mode}-latency`;
      const problems: string[] = [];
      app.proxy.latencyMs = 25;

      const concurrent = await Promise.all(
        [0, 1, 2].map(() => deliver(app.baseUrl, id, REQUEST_TIMEOUT_MS)),
      );
      const redelivered = await deliverUntilOk(app.baseUrl, id, {
        timeoutMs: REQUEST_TIMEOUT_MS,
        deadlineMs: SETTLE_DEADLINE_MS,
        pauseMs: REDELIVERY_PAUSE_MS,
      });
      const answers = [...concurrent, ...redelivered];
      answers.forEach((answer, n) => {
        const problem = unacceptable(answer, id);
        if (problem) problems.push(`answer ${n + 1}: ${problem}`);
      });
      const oks = answers.filter(
        (answer): answer is Extract<Delivery, { status: number }> => answer.status === 200,
      );
      if (oks.length === 0) problems.push('no 200');
      if (new Set(oks.map((answer) => answer.body)).size > 1)
        problems.push('the 200 bodies differ');
      if (oks.filter((answer) => answer.headers['idempotent-replayed'] !== 'true').length !== 1)
        problems.push('not exactly one first (non-replayed) 200');
      const receipt = await inspector.receipt(id);
      if (receipt?.status !== 'completed' || receipt.attempts !== 1)
        problems.push(`final receipt: ${JSON.stringify(receipt)}`);
      if ((await inspector.rows(id)) !== 1)
        problems.push(`business rows: ${await inspector.rows(id)}`);
      const stillBorrowed = await borrowedAfter(app, 1000);
      if (stillBorrowed > 0) problems.push(`${stillBorrowed} pooled connection(s) still borrowed`);
      problems.push(...unhandled.splice(0));
      expect({ problems, answers: answers.map(statusOf) }).toEqual({
        problems: [],
        answers: answers.map(statusOf),
      });
    });
  });
});
