/**
 * Regression (issue 8, failure mode 10): on MySQL/MariaDB (no RETURNING) the store reads the
 * receipt back after its reclaim UPDATE (and, before issue 10, after its claim INSERT). A worker that stalls between its write
 * and that read, past the stale threshold, used to adopt the `attempts` of the worker that took
 * over meanwhile: it then ran the handler with the new owner's fencing token, its `complete` was
 * accepted, and the rightful owner's was rejected.
 *
 * The stall is real: the store runs on a mysql2 pool seen through a pass-through wrapper that
 * holds back the *result* of the store's claim/reclaim write (the statement has run and
 * committed on the real server) until the test has let another worker take the receipt over.
 */
import mysql from 'mysql2/promise';
import {
  ClaimLost,
  IdempotencyGuard,
  RequestInProgress,
  RequestKey,
} from '@webhook-idempotency/core';
import { Schema, SqlStore } from '../../src';
import { shifter } from '../helpers/conformance';
import { mysqlDatabase } from '../helpers/databases';

const table = 'receipts_fencing';
const STALE_MS = 60_000;

type Query = (sql: unknown, ...rest: unknown[]) => Promise<unknown>;

/**
 * `pool`, with every statement still sent to the real server; the first statement (after
 * `arm`) whose text matches `pattern` resolves only after `stall` ran.
 */
function stalling(pool: mysql.Pool) {
  let armed: { pattern: RegExp; stall: () => Promise<void> } | undefined;
  let stalls = 0;
  const wrapQuery =
    (query: Query, self: object): Query =>
    async (sql, ...rest) => {
      const result = await query.call(self, sql, ...rest);
      const text = typeof sql === 'string' ? sql : String((sql as { sql?: unknown }).sql);
      const hook = armed;
      if (hook?.pattern.test(text)) {
        armed = undefined;
        stalls++;
        await hook.stall();
      }
      return result;
    };
  const wrapConnection = (connection: mysql.PoolConnection) =>
    new Proxy(connection, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver);
        return property === 'query' || property === 'execute'
          ? wrapQuery(value as Query, target)
          : value;
      },
    });
  const wrapped = new Proxy(pool, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (property === 'getConnection')
        return async () => wrapConnection(await target.getConnection());
      if (property === 'query' || property === 'execute') return wrapQuery(value as Query, target);
      return value;
    },
  });
  return {
    db: wrapped,
    arm(pattern: RegExp, stall: () => Promise<void>) {
      armed = { pattern, stall };
    },
    stalls: () => stalls,
  };
}

describe('a MySQL worker stalled between its claim/reclaim write and the read-back (MariaDB)', () => {
  let pool: mysql.Pool;
  let plain: SqlStore;
  let advance: (ms: number) => Promise<void>;
  let run = 0;
  let key: RequestKey;
  beforeAll(async () => {
    pool = mysql.createPool({ uri: await mysqlDatabase('wi_issue8_fencing'), connectionLimit: 5 });
    await Schema.createTable(pool, { table });
    plain = new SqlStore(pool, { table });
    advance = shifter(pool, table);
  });
  beforeEach(() => {
    key = new RequestKey('stripe', `evt_${++run}`);
  });
  afterAll(() => pool.end());

  /** Another worker takes the receipt over: the stalled one's claim has gone stale. */
  const takeOver = (attempts: number) => async () => {
    await advance(2 * STALE_MS);
    const taken = await plain.reclaim(key, { now: 0, attempts, staleAfterMs: STALE_MS });
    expect(taken).toMatchObject({ status: 'processing', attempts: attempts + 1 });
  };

  it("claim: the stalled winner keeps its own token, so its result is refused and the new owner's kept", async () => {
    // Since issue 10 a won claim reads nothing back: the INSERT returns the claim time it wrote.
    // The stalled winner therefore runs with its own attempts and claim time, like any worker
    // that stalled past the stale threshold, and its completion is fenced out.
    const stalled = stalling(pool);
    const guard = new IdempotencyGuard(new SqlStore(stalled.db, { table }), {
      staleAfterSeconds: STALE_MS / 1000,
    });
    stalled.arm(/^INSERT INTO/, takeOver(1));
    const handler = jest.fn(async (_context: { attempts: number }) => 'stalled worker');

    const outcome = guard.run(key, handler).then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    );
    expect(await outcome).toEqual({ error: expect.any(ClaimLost) });
    expect(stalled.stalls()).toBe(1);
    expect(handler.mock.calls.map(([context]) => context.attempts)).toEqual([1]);
    // The worker that took over keeps its fencing token: its completion is the one recorded.
    expect(await plain.complete(key, { now: 0, attempts: 2, response: '"new owner"' })).toBe(true);
    expect(await plain.find(key, { now: 0 })).toMatchObject({
      status: 'completed',
      attempts: 2,
      response: '"new owner"',
    });
  });

  it("reclaim: the stalled taker does not run the handler with the next owner's attempts", async () => {
    expect((await plain.claim(key, { now: 0, fingerprint: null })).won).toBe(true);
    expect(await plain.fail(key, { now: 0, attempts: 1, error: 'boom' })).toBe(true);
    const stalled = stalling(pool);
    const guard = new IdempotencyGuard(new SqlStore(stalled.db, { table }), {
      staleAfterSeconds: STALE_MS / 1000,
    });
    stalled.arm(/^UPDATE \S+ SET status = 'processing'/, takeOver(2));
    const handler = jest.fn(async () => 'stalled worker');

    const outcome = guard.run(key, handler).then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    );
    expect(await outcome).toEqual({ error: expect.any(RequestInProgress) });
    expect(stalled.stalls()).toBe(1);
    expect(handler).not.toHaveBeenCalled();
    expect(await plain.complete(key, { now: 0, attempts: 3, response: '"next owner"' })).toBe(true);
    expect(await plain.find(key, { now: 0 })).toMatchObject({
      status: 'completed',
      attempts: 3,
      response: '"next owner"',
    });
  });

  it('store level: a won claim or a reclaim never carries attempts other than the ones its write set', async () => {
    const stalled = stalling(pool);
    const store = new SqlStore(stalled.db, { table });
    stalled.arm(/^INSERT INTO/, takeOver(1));
    const claim = await store.claim(key, { now: 0, fingerprint: null });
    expect(stalled.stalls()).toBe(1);
    if (claim.won) expect(claim.receipt.attempts).toBe(1);
    else expect(claim.receipt).toMatchObject({ status: 'processing', attempts: 2 });

    await advance(2 * STALE_MS);
    stalled.arm(/^UPDATE \S+ SET status = 'processing'/, takeOver(3));
    const taken = await store.reclaim(key, { now: 0, attempts: 2, staleAfterMs: STALE_MS });
    expect(stalled.stalls()).toBe(2);
    if (taken) expect(taken.attempts).toBe(3);
    expect(await plain.find(key, { now: 0 })).toMatchObject({ status: 'processing', attempts: 4 });
  });
});
