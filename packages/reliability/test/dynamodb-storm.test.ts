/**
 * @module Storm with crashes on the DynamoDB store, as on the SQL stores and Redis: 4 Express
 * server processes (2 giving the store a `DynamoDBClient`, 2 a `DynamoDBDocumentClient`) take
 * thousands of redelivered webhooks while the test SIGKILLs two of them (one inside a handler,
 * after its effect) and takes the DynamoDB-compatible server away once.
 * - dynalite (LevelDB files), without transactions: SIGKILLed and restarted; each run's effect is
 *   a row of a SQLite ledger beside the run; at most one run per claim, every receipt kept, every
 *   id answered once.
 * - DynamoDB Local (a SQLite file), transactional: made unreachable (one transaction's answer cut
 *   after it ran, the emulator frozen, every connection dropped) and back; not SIGKILLed, because
 *   the emulator can acknowledge a transaction that a SIGKILL then loses, which DynamoDB never
 *   does (see ../src/storm/dynamodb-run.ts). Each run's effect is an item written in the same
 *   TransactWriteItems as its receipt; exactly one effect per id, the one its answer names.
 * Afterwards every id was answered 200, is `completed`, and every replay is byte-identical to the
 * first answer; no app process crashed and no 5xx but 503 was answered.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type DynamoServer,
  startDynalite,
  startDynamoDBLocal,
} from '@webhook-idempotency/test-support/dynamodb';
import { bySize } from '@webhook-idempotency/test-support/proof-size';
import {
  type DynamoStormOptions,
  type DynamoStormReport,
  runDynamoStorm,
} from '../src/storm/dynamodb-run';

// pnpm test: 2,000 deliveries over 200 ids; pnpm test:proof 8,000 over 800, as the other storms.
const OPTIONS: DynamoStormOptions = {
  ids: bySize({ small: 200, full: 800, soak: 4_000 }),
  perId: 10,
  inFlight: 48,
  servers: ['client', 'client', 'document client', 'document client'],
  transactional: false,
  handlerDelayMs: 20,
  staleAfterSeconds: 2,
  retryAfterCapMs: 1_000,
  requestTimeoutMs: 15_000,
  giveUpAfterMs: 90_000,
  seed: 20_261_206,
  serverKills: [
    { at: 0.15, slot: 1, how: 'now' },
    { at: 0.65, slot: 2, how: 'in-handler' },
  ],
  storeFault: 'kill',
  storeKillAt: 0.4,
  // Down longer than a store call waits for it: calls meet the outage and fail (503).
  storeDownMs: 2_500,
  storeTimeoutMs: 1_000,
};
const TIMEOUT_MS = bySize({ small: 180_000, full: 300_000, soak: 1_800_000 });
const SERVER_FAULTS = [
  'SIGKILL server 1 at once + restart',
  'SIGKILL server 2 inside a handler + restart',
];

const scratch = (prefix: string) => mkdtempSync(join(process.env.WI_TMP ?? tmpdir(), prefix));
const first = (list: readonly string[]) =>
  list.length > 5 ? [...list.slice(0, 5), `… ${list.length - 5} more`] : list;

/** Every figure that must be zero or empty, in one object: a failure shows all of them at once. */
function verdict(report: DynamoStormReport) {
  const c = report.counts;
  return {
    faults: report.faults.map((f) => f.what),
    crashes: report.crashes.map(
      (crash) =>
        `server ${crash.slot} exited ${crash.exit}: ${crash.output.split('\n').slice(-3).join(' | ')}`,
    ),
    other5xx: c.other5xx,
    unexpected: c.unexpected,
    timeouts: c.timeouts,
    gaveUp: c.gaveUp,
    ...Object.fromEntries(Object.entries(report.problems).map(([k, v]) => [k, first(v)])),
    samples: c.other5xx + c.unexpected + c.timeouts + c.gaveUp > 0 ? c.samples : [],
  };
}

const STORE_FAULTS = {
  kill: 'SIGKILL dynamodb + restart',
  unreachable:
    "dynamodb unreachable (a transaction's answer cut, frozen, connections dropped) + back",
};

const clean = (store: keyof typeof STORE_FAULTS) => ({
  faults: [SERVER_FAULTS[0], STORE_FAULTS[store], SERVER_FAULTS[1]],
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
  effectsNotOnce: [],
  samples: [],
});

async function storm(
  start: (dir: string) => Promise<DynamoServer>,
  options: DynamoStormOptions,
): Promise<DynamoStormReport> {
  const dir = scratch('storm-dynamodb-');
  const server = await start(join(dir, 'server'));
  try {
    return await runDynamoStorm(server, dir, options);
  } finally {
    await server.destroy();
  }
}

describe(`DynamoDB storm with crashes: ${OPTIONS.ids * OPTIONS.perId} deliveries over ${OPTIONS.ids} ids, 4 Express processes (2 on the client, 2 on the document client)`, () => {
  test(
    'dynalite (LevelDB on disk), no transactions: killed and restarted once; 0 lost, 0 double per claim, 0 crashes',
    async () => {
      const report = await storm((dir) => startDynalite(dir, { persist: true }), {
        ...OPTIONS,
      });
      console.log(report.summary);
      expect(verdict(report)).toEqual(clean('kill'));
      expect(report.committedVia.client).toBeGreaterThan(0);
      expect(report.committedVia['document client']).toBeGreaterThan(0);
      expect(report.counts.ok200).toBe(report.counts.deliveries);
      expect(report.counts.s503).toBeGreaterThan(0);
      expect(report.killedInHandler).toHaveLength(1);
      // The run killed after its effect ran again (no transaction held it back): at least one rerun.
      expect(report.reruns).toBeGreaterThanOrEqual(1);
    },
    TIMEOUT_MS,
  );

  test(
    'DynamoDB Local (SQLite on disk), transactional: unreachable once, a commit answer lost; exactly one effect per id, 0 crashes',
    async () => {
      const report = await storm((dir) => startDynamoDBLocal(dir, { persist: true }), {
        ...OPTIONS,
        transactional: true,
        storeFault: 'unreachable',
      });
      console.log(report.summary);
      expect(verdict(report)).toEqual(clean('unreachable'));
      expect(report.committedVia.client).toBeGreaterThan(0);
      expect(report.committedVia['document client']).toBeGreaterThan(0);
      expect(report.counts.ok200).toBe(report.counts.deliveries);
      expect(report.counts.s503).toBeGreaterThan(0);
      expect(report.killedInHandler).toHaveLength(1);
      // The run killed inside its handler wrote nothing: its takeover's effect is the only one.
      expect(report.reruns).toBe(0);
    },
    TIMEOUT_MS,
  );
});
