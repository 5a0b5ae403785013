/**
 * Model-based property test (issue 8, "Fault and load proof"): random interleavings of deliveries
 * (several keys, fingerprints, body-less requests), handler endings (return, throw, non-2xx, held
 * past the step), clock jumps, stale takeovers, late completions of old owners, bursts and purges,
 * run through the real IdempotencyGuard over InMemoryStore and over SqlStore on a better-sqlite3
 * file, and compared after every step with the reference model (src/model.ts).
 *
 * Default run: a fixed seed, 200 + 100 interleavings of up to 25 steps (under a second).
 * `WI_SOAK=1`: 15,000 + 7,500 interleavings of up to 40 steps, seed from WI_PROPERTY_SEED or the
 * time (printed with the figures and the per-path coverage). WI_PROPERTY_PATHS=1 prints the coverage
 * in the default run too.
 *
 * SQLite: SqlStore takes "now" from the database, so the database's `julianday('now')` is pointed at
 * the interleaving's virtual clock (src/property-clock.ts); clock jumps reach it without sleeping.
 * The guard runs non-transactionally here: a held handler in transactional mode holds the SQLite
 * write lock (issue 8 item 1), which the handler deadline, not this model, is about.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import {
  DAY,
  InMemoryStore,
  ReceiptStatus,
  type At,
  type ClaimResult,
  type KeyLike,
  type ObservedReceipt,
  type Store,
  type StoreCapabilities,
} from '@webhook-idempotency/core';
import { Schema, SqlStore } from '@webhook-idempotency/sql';
import {
  AdvanceClockCommand,
  DeliverCommand,
  interleavingProperty,
  KEYS,
  PurgeCommand,
  runCommands,
  SettleCommand,
  STALE_AFTER_SECONDS,
  START_MS,
  type InterleavingCounter,
  type PropertyTarget,
} from '../src/property-commands';
import { driveSqliteClock, type VirtualClock } from '../src/property-clock';

const SOAK = process.env.WI_SOAK === '1';
const SEED = process.env.WI_PROPERTY_SEED
  ? Number(process.env.WI_PROPERTY_SEED)
  : SOAK
    ? Date.now() % 2 ** 31
    : 20261201;
const MAX_COMMANDS = SOAK ? 40 : 25;
/** Interleavings per (target, chunk); the soak run splits its ≥ 10,000 into chunks of a few seconds each. */
const SIZES = SOAK
  ? { memory: { runs: 3000, chunks: 5 }, sqlite: { runs: 1500, chunks: 5 } }
  : { memory: { runs: 200, chunks: 1 }, sqlite: { runs: 100, chunks: 1 } };

const memoryTarget: PropertyTarget = {
  name: 'InMemoryStore',
  store: async () => new InMemoryStore(),
};

/**
 * SqlStore over a real better-sqlite3 file. SqlStore takes "now" from the database; the database's
 * `julianday('now')` is pointed at the interleaving's virtual clock (src/property-clock.ts), so
 * clock jumps reach SQLite too, without sleeping.
 */
function sqliteTarget(): PropertyTarget & { close(): void } {
  const dir = mkdtempSync(join(process.env.WI_TMP ?? tmpdir(), 'property-'));
  const db = new Database(join(dir, 'receipts.db'));
  db.pragma('journal_mode = WAL');
  let current: VirtualClock = { now: START_MS };
  driveSqliteClock(db, () => current);
  let created = false;
  return {
    name: 'SqlStore (better-sqlite3 file)',
    async store(clock) {
      current = clock;
      if (!created) {
        await Schema.createTable(db, { table: 'receipts' });
        created = true;
      }
      db.exec('DELETE FROM receipts');
      return new SqlStore(db, { table: 'receipts' });
    },
    close: () => db.close(),
  };
}

const counted: InterleavingCounter = { runs: 0, commands: 0, paths: {} };

/** Paths every passing chunk must have gone through, or the property proved little. */
const REQUIRED_PATHS = [
  'deliver: first claim',
  'deliver: takeover of a failed receipt',
  'deliver: takeover of a processing receipt',
  'deliver: failed receipt retaken with another fingerprint',
  'deliver: replay',
  'deliver: mismatch',
  'deliver: body-less request refused',
  'deliver: verified body-less request replayed',
  'deliver: in-progress',
  'handler returned: completed',
  'handler threw: failed',
  'late completion refused (ClaimLost)',
  'burst: one handler ran',
  'purge deleted receipts',
];

async function assertInterleavings(
  target: PropertyTarget,
  runs: number,
  seed: number,
): Promise<void> {
  const started = performance.now();
  const chunk: InterleavingCounter = { runs: 0, commands: 0, paths: {} };
  await fc.assert(interleavingProperty(target, { maxCommands: MAX_COMMANDS, counter: chunk }), {
    seed,
    numRuns: runs,
  });
  const ms = performance.now() - started;
  counted.runs += chunk.runs;
  counted.commands += chunk.commands;
  for (const [path, n] of Object.entries(chunk.paths))
    counted.paths[path] = (counted.paths[path] ?? 0) + n;
  if (SOAK)
    console.log(
      `${target.name}: ${chunk.runs} interleavings, ${chunk.commands} commands in ${(ms / 1000).toFixed(1)} s (seed ${seed})`,
    );
  expect(REQUIRED_PATHS.filter((path) => !chunk.paths[path])).toEqual([]);
}

const [KEY] = KEYS as [(typeof KEYS)[number]];
const STALE_MS = STALE_AFTER_SECONDS * 1000;
const sqlite = sqliteTarget();
afterAll(() => sqlite.close());

/** Fixed interleavings, each pinning one rule; the last two are shrunk counterexamples of the property. */
describe.each([memoryTarget, sqlite])('fixed interleavings on $name', (target) => {
  it("a stale claim is taken over (attempts + 1); the old owner's late completion is refused with ClaimLost; the new owner's result is replayed", async () => {
    await runCommands(target, [
      new DeliverCommand(KEY, 'fp-a', false, 'hold'),
      new AdvanceClockCommand(STALE_MS - 1),
      new DeliverCommand(KEY, 'fp-a', false, 'return'), // still fresh: RequestInProgress, Retry-After 1 s
      new AdvanceClockCommand(1),
      new DeliverCommand(KEY, 'fp-a', false, 'hold'), // stale now: taken over with attempts 2
      new SettleCommand(0, 'return'), // the old owner: ClaimLost
      new SettleCommand(0, 'throw'), // the new owner throws: failed
      new DeliverCommand(KEY, 'fp-a', false, 'return'), // failed: runs again, attempts 3
      new DeliverCommand(KEY, 'fp-a', false, 'throw'), // completed: replay, the handler does not run
    ]);
  });

  it("a failed attempt's fingerprint does not lock the key", async () => {
    await runCommands(target, [
      new DeliverCommand(KEY, 'fp-b', false, 'throw'), // a forged first delivery, rejected by the handler
      new DeliverCommand(KEY, 'fp-a', false, 'return'), // the genuine one runs and records its fingerprint
      new DeliverCommand(KEY, 'fp-a', false, 'return'), // its duplicate is a replay, not a mismatch
      new DeliverCommand(KEY, 'fp-b', false, 'return'), // the forged body again: mismatch
    ]);
  });

  it('a body-less request is a mismatch against a fingerprinted receipt, unless verified', async () => {
    await runCommands(target, [
      new DeliverCommand(KEY, 'fp-a', false, 'return'),
      new DeliverCommand(KEY, null, false, 'return'), // FingerprintMismatch, not the stored answer
      new DeliverCommand(KEY, null, true, 'return'), // authenticated: replay
    ]);
  });

  it('purge deletes only finished receipts at least as old as the cut-off, never a processing one', async () => {
    await runCommands(target, [
      new DeliverCommand(KEY, 'fp-a', false, 'return'),
      new DeliverCommand(KEYS[1]!, null, false, 'throw'),
      new DeliverCommand(KEYS[2]!, null, false, 'hold'),
      new AdvanceClockCommand(DAY - 1),
      new PurgeCommand(1, undefined), // finished 1 ms short of a day ago: kept
      new AdvanceClockCommand(1),
      new PurgeCommand(1, 'github'), // only github's, and that one is processing
      new PurgeCommand(1, undefined), // both finished ones: exactly a day old, the bound is inclusive
      new PurgeCommand(0, undefined),
    ]);
  });

  it('a worker whose receipt was purged and claimed anew cannot complete it (the fencing token must not be reused)', async () => {
    // Shrunk counterexample of the property (seed 20261201). attempts restarts at 1 after a purge,
    // so the first owner's `complete(attempts 1)` passes the store's fence and overwrites the new
    // owner's claim, which then gets ClaimLost for a run whose effect happened.
    await runCommands(target, [
      new DeliverCommand(KEY, 'fp-a', false, 'hold'), // owner 1, attempts 1, never settles in time
      new AdvanceClockCommand(DAY),
      new DeliverCommand(KEY, 'fp-a', false, 'return'), // takeover, attempts 2, completed
      new AdvanceClockCommand(1),
      new PurgeCommand(0, undefined), // the completed receipt goes
      new DeliverCommand(KEY, 'fp-a', false, 'hold'), // a redelivery claims anew: attempts 1 again
      new SettleCommand(0, 'return'), // owner 1 finally returns: must be refused
    ]);
  });

  it('a late failure of a worker whose receipt was purged and claimed anew does not free the new claim (no second handler)', async () => {
    // Shrunk counterexample of the soak run (seed 816110430): owner 1's `fail(attempts 1)` marks the
    // new owner's fresh claim failed, and the next delivery runs the handler while it still runs.
    await runCommands(target, [
      new DeliverCommand(KEY, 'fp-a', false, 'hold'),
      new AdvanceClockCommand(31 * DAY),
      new DeliverCommand(KEY, 'fp-a', false, 'return'),
      new AdvanceClockCommand(1),
      new PurgeCommand(0, undefined),
      new DeliverCommand(KEY, 'fp-a', false, 'hold'), // the new owner, attempts 1, fresh
      new SettleCommand(0, 'http-error'), // owner 1 answers non-2xx: its fail must be refused
      new DeliverCommand(KEY, 'fp-a', false, 'return'), // must be RequestInProgress, not a second run
    ]);
  });
});

describe('the guard agrees with the receipt model', () => {
  afterAll(() => {
    if (SOAK || process.env.WI_PROPERTY_PATHS)
      console.log(
        `property total: ${counted.runs} interleavings, ${counted.commands} commands (seed ${SEED})\n${JSON.stringify(counted.paths, null, 1)}`,
      );
  });

  for (let chunk = 0; chunk < SIZES.memory.chunks; chunk++) {
    it(`on InMemoryStore (${SIZES.memory.runs} interleavings, seed ${SEED + chunk})`, async () => {
      await assertInterleavings(memoryTarget, SIZES.memory.runs, SEED + chunk);
    });
  }

  describe('on SqlStore over a better-sqlite3 file', () => {
    const target = sqlite;
    for (let chunk = 0; chunk < SIZES.sqlite.chunks; chunk++) {
      it(`${SIZES.sqlite.runs} interleavings, seed ${SEED + chunk}`, async () => {
        await assertInterleavings(target, SIZES.sqlite.runs, SEED + chunk);
      });
    }
  });
});

// ---------------------------------------------------------------------------------------------
// The property can fail: stores with one deliberate flaw each, defined here and nowhere else.

type Flaw =
  | 'unfenced-complete'
  | 'check-then-insert'
  | 'purge-processing'
  | 'reclaim-keeps-fingerprint';

interface Row {
  provider: string;
  externalId: string;
  status: ReceiptStatus;
  response: string | null;
  attempts: number;
  error: string | null;
  fingerprint: string | null;
  claimedAt: number;
  finishedAt: number | null;
}

/** A Map-based store, correct but for `flaw`. */
class FlawedStore implements Store {
  readonly capabilities: StoreCapabilities = {
    crossProcess: false,
    transactional: false,
    clock: 'caller',
  };
  private readonly rows = new Map<string, Row>();

  constructor(private readonly flaw: Flaw) {}

  private static id(key: KeyLike): string {
    return JSON.stringify([key.provider, key.externalId]);
  }

  private static observe(row: Row, now: number): ObservedReceipt {
    return {
      ...row,
      claimedAt: new Date(row.claimedAt),
      finishedAt: row.finishedAt === null ? null : new Date(row.finishedAt),
      claimAgeMs: now - row.claimedAt,
    };
  }

  async claim(
    key: KeyLike,
    { now, fingerprint }: At & { fingerprint: string | null },
  ): Promise<ClaimResult> {
    const id = FlawedStore.id(key);
    const existing = this.rows.get(id);
    if (existing) return { won: false, receipt: FlawedStore.observe(existing, now) };
    // The flaw: "SELECT, then INSERT if absent" with a gap between.
    if (this.flaw === 'check-then-insert') await new Promise((resolve) => setImmediate(resolve));
    const row: Row = {
      provider: key.provider,
      externalId: key.externalId,
      status: ReceiptStatus.PROCESSING,
      response: null,
      attempts: 1,
      error: null,
      fingerprint,
      claimedAt: now,
      finishedAt: null,
    };
    this.rows.set(id, row);
    return { won: true, receipt: FlawedStore.observe(row, now) };
  }

  async reclaim(
    key: KeyLike,
    {
      now,
      attempts,
      staleAfterMs,
      fingerprint,
    }: At & { attempts: number; staleAfterMs: number; fingerprint?: string | null },
  ): Promise<ObservedReceipt | null> {
    const row = this.rows.get(FlawedStore.id(key));
    if (!row || row.attempts !== attempts) return null;
    if (
      !(
        row.status === ReceiptStatus.FAILED ||
        (row.status === ReceiptStatus.PROCESSING && row.claimedAt <= now - staleAfterMs)
      )
    )
      return null;
    Object.assign(row, {
      status: ReceiptStatus.PROCESSING,
      attempts: attempts + 1,
      claimedAt: now,
      finishedAt: null,
      error: null,
    });
    // The flaw: the failed attempt's fingerprint stays on the receipt.
    if (fingerprint !== undefined && this.flaw !== 'reclaim-keeps-fingerprint')
      row.fingerprint = fingerprint;
    return FlawedStore.observe(row, now);
  }

  async complete(
    key: KeyLike,
    { now, attempts, response }: At & { attempts: number; response: string },
  ): Promise<boolean> {
    const row = this.rows.get(FlawedStore.id(key));
    // The flaw: no fence on attempts, so a worker that lost its claim overwrites the new owner.
    const owned =
      row?.status === ReceiptStatus.PROCESSING &&
      (this.flaw === 'unfenced-complete' || row.attempts === attempts);
    if (!row || !owned) return false;
    Object.assign(row, { status: ReceiptStatus.COMPLETED, response, finishedAt: now });
    return true;
  }

  async fail(
    key: KeyLike,
    { now, attempts, error }: At & { attempts: number; error: string },
  ): Promise<boolean> {
    const row = this.rows.get(FlawedStore.id(key));
    if (!row || row.status !== ReceiptStatus.PROCESSING || row.attempts !== attempts) return false;
    Object.assign(row, { status: ReceiptStatus.FAILED, error, finishedAt: now });
    return true;
  }

  async find(key: KeyLike, { now }: At): Promise<ObservedReceipt | null> {
    const row = this.rows.get(FlawedStore.id(key));
    return row ? FlawedStore.observe(row, now) : null;
  }

  async purge({
    now,
    olderThanMs,
    provider,
  }: At & { olderThanMs: number; provider?: string }): Promise<number> {
    let deleted = 0;
    for (const [id, row] of this.rows) {
      if (provider !== undefined && row.provider !== provider) continue;
      // The flaw: a processing receipt whose claim is old enough is deleted too.
      const old =
        this.flaw === 'purge-processing' && row.status === ReceiptStatus.PROCESSING
          ? row.claimedAt
          : row.finishedAt;
      if (old !== null && old <= now - olderThanMs) {
        this.rows.delete(id);
        deleted++;
      }
    }
    return deleted;
  }
}

describe('the property catches a broken store', () => {
  const cases: Array<[Flaw, RegExp]> = [
    ['unfenced-complete', /a completion by a worker that lost its claim to a takeover/],
    [
      'check-then-insert',
      /two handlers run on .* with fresh claims|expected exactly one handler to run/,
    ],
    ['purge-processing', /deleted count|expected .* got none/],
    ['reclaim-keeps-fingerprint', /fingerprint|FingerprintMismatch/],
  ];
  for (const [flaw, message] of cases) {
    it(`a store with the flaw "${flaw}" fails it`, async () => {
      const target: PropertyTarget = {
        name: `FlawedStore (${flaw})`,
        store: async () => new FlawedStore(flaw),
      };
      const result = await fc.check(interleavingProperty(target, { maxCommands: MAX_COMMANDS }), {
        seed: 20261201,
        numRuns: 300,
      });
      expect(result.failed).toBe(true);
      expect(`${String(result.errorInstance)}\n${fc.stringify(result.counterexample)}`).toMatch(
        message,
      );
    });
  }
});
