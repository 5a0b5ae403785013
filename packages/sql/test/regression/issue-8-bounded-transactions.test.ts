/**
 * Regression (failure modes 1, 5, 9, 12) on every kind of connection:
 * - a transactional handler that never settles used to hold its transaction (a pooled connection,
 *   the SQLite write lock, row locks) for as long as it hung; the deadline now rolls it back, marks
 *   the receipt failed and answers HandlerTimeout, and the next delivery runs on untouched data;
 * - the handle stayed usable after the transaction ended ("answer, then write" wrote through a
 *   connection back in the pool); it now refuses every call with TransactionClosed.
 */
import {
  HandlerTimeout,
  IdempotencyGuard,
  RequestKey,
  TransactionClosed,
} from '@webhook-idempotency/core';
import { Schema, SqlStore } from '../../src';
import { createExecutor } from '../../src/connections/detect';
import { connectionKinds, runOn, type OpenedKind } from '../helpers/kinds';

const table = 'receipts_bounded';
const effects = 'effects_bounded';
const never = new Promise<never>(() => undefined);

describe.each(connectionKinds('bounded'))('bounded transactions (%s)', (_name, open) => {
  let opened: OpenedKind;
  let run = 0;
  beforeAll(async () => {
    opened = await open();
    await Schema.createTable(opened.db, { table });
    await createExecutor(opened.db, 5000).query(
      `CREATE TABLE ${effects} (id VARCHAR(100) NOT NULL PRIMARY KEY)`,
      [],
    );
  });
  afterAll(() => opened.close());
  const effectRows = async (id: string) =>
    (await createExecutor(opened.db, 5000).query(`SELECT id FROM ${effects} WHERE id = ?`, [id]))
      .rows.length;

  it('a handler that never settles is rolled back at the deadline; the next delivery runs on untouched data', async () => {
    const store = new SqlStore(opened.db, { table, acquireTimeoutMs: 5000 });
    const guard = new IdempotencyGuard(store, {
      transactional: true,
      staleAfterSeconds: 5,
      handlerTimeoutSeconds: 0.4,
    });
    const key = new RequestKey('stripe', `evt_hung_${++run}`);
    let handle: unknown;
    const started = Date.now();
    const hung = guard.run(key, async ({ transaction }) => {
      handle = transaction;
      await runOn(transaction, `INSERT INTO ${effects} (id) VALUES (?)`, [key.externalId]);
      return never;
    });
    await expect(hung).rejects.toBeInstanceOf(HandlerTimeout);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(await store.find(key, { now: 0 })).toMatchObject({ status: 'failed', attempts: 1 });
    expect(await effectRows(key.externalId)).toBe(0);
    // The hung handler's later calls are refused, whatever it tries.
    const late = await runOn(handle, `INSERT INTO ${effects} (id) VALUES (?)`, [
      `${key.externalId}_late`,
    ]).catch((e: unknown) => e);
    expect(late).toBeInstanceOf(TransactionClosed);
    expect((late as TransactionClosed).reason).toBe('timed out');

    const again = await guard.run(key, async ({ transaction }) => {
      await runOn(transaction, `INSERT INTO ${effects} (id) VALUES (?)`, [key.externalId]);
      return 'done';
    });
    expect(again).toEqual({ response: 'done', isReplay: false, attempts: 2 });
    expect(await effectRows(key.externalId)).toBe(1);
    expect(await effectRows(`${key.externalId}_late`)).toBe(0);
  });

  it('the handle refuses every call once its transaction committed or rolled back', async () => {
    const guard = new IdempotencyGuard(new SqlStore(opened.db, { table }), {
      transactional: true,
    });
    let committed: unknown;
    await guard.run(new RequestKey('stripe', `evt_after_${++run}`), ({ transaction }) => {
      committed = transaction;
      return 'ok';
    });
    const afterCommit = await runOn(committed, `INSERT INTO ${effects} (id) VALUES (?)`, [
      `after_commit_${run}`,
    ]).catch((e: unknown) => e);
    expect(afterCommit).toBeInstanceOf(TransactionClosed);
    expect((afterCommit as TransactionClosed).reason).toBe('committed');

    let rolledBack: unknown;
    const boom = new Error('handler failed');
    await expect(
      guard.run(new RequestKey('stripe', `evt_after_${++run}`), ({ transaction }) => {
        rolledBack = transaction;
        throw boom;
      }),
    ).rejects.toBe(boom);
    const afterRollback = await runOn(rolledBack, `INSERT INTO ${effects} (id) VALUES (?)`, [
      `after_rollback_${run}`,
    ]).catch((e: unknown) => e);
    expect(afterRollback).toBeInstanceOf(TransactionClosed);
    expect((afterRollback as TransactionClosed).reason).toBe('rolled back');
    expect(await effectRows(`after_commit_${run - 1}`)).toBe(0);
    expect(await effectRows(`after_rollback_${run}`)).toBe(0);
  });

  it('deadlines do not leak connections: many timed-out runs, then ordinary work still goes through', async () => {
    const store = new SqlStore(opened.db, { table, acquireTimeoutMs: 3000 });
    const guard = new IdempotencyGuard(store, {
      transactional: true,
      staleAfterSeconds: 5,
      handlerTimeoutSeconds: 0.2,
    });
    const base = ++run;
    // More hung runs (one after another) than any pool here has connections.
    for (let i = 0; i < 6; i++) {
      await expect(
        guard.run(new RequestKey('stripe', `evt_leak_${base}_${i}`), () => never),
      ).rejects.toBeInstanceOf(HandlerTimeout);
    }
    // The ordinary run through a guard of the same store without the hung runs' 200 ms deadline:
    // what it checks is that a connection is still there (a leaked pool fails its acquire, after
    // acquireTimeoutMs), not how fast a loaded machine commits (a CI run once spent 200 ms there).
    const ordinary = new IdempotencyGuard(store, { transactional: true, staleAfterSeconds: 5 });
    const outcome = await ordinary.run(
      new RequestKey('stripe', `evt_leak_${base}_ok`),
      async ({ transaction }) => {
        await runOn(transaction, `INSERT INTO ${effects} (id) VALUES (?)`, [`leak_${base}`]);
        return 'ok';
      },
    );
    expect(outcome.isReplay).toBe(false);
    expect(await effectRows(`leak_${base}`)).toBe(1);
  });
});

// Failure mode 12: the guard's own timer cannot end a transaction whose process is frozen or cut
// off, so the server bounds lock waits in the guard's transaction as well. Shown without the
// timer (no signal): a row lock held elsewhere ends the handler's wait at the deadline.
describe.each(connectionKinds('locks').filter(([, , can]) => can.serverLockTimeout))(
  'a lock wait in the guard transaction ends at the deadline on the server (%s)',
  (_name, open) => {
    let opened: OpenedKind;
    beforeAll(async () => {
      opened = await open();
      await createExecutor(opened.db, 5000).query(
        `CREATE TABLE ${effects} (id VARCHAR(100) NOT NULL PRIMARY KEY)`,
        [],
      );
    });
    afterAll(() => opened.close());

    it('instead of waiting for the lock holder (forever on PostgreSQL, 50 s on InnoDB)', async () => {
      const holder = createExecutor(opened.db, 5000);
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let locked!: () => void;
      const isLocked = new Promise<void>((resolve) => (locked = resolve));
      const holding = holder.transaction(async (tx) => {
        await holder.query(`INSERT INTO ${effects} (id) VALUES (?)`, ['contended'], tx);
        locked();
        await released;
        throw new Error('roll back the holder');
      });
      await isLocked;
      const store = new SqlStore(opened.db, { table });
      const started = Date.now();
      const waited = await store
        .withTransaction(
          (tx) => runOn(tx, `INSERT INTO ${effects} (id) VALUES (?)`, ['contended']),
          {
            timeoutMs: 1000,
          },
        )
        .catch((e: unknown) => e);
      const ms = Date.now() - started;
      release();
      await holding.catch(() => undefined);
      expect(waited).toBeInstanceOf(Error);
      // The server's lock timeout, as the handler saw it: Drizzle wraps it (the driver's error is
      // its cause), the other kinds hand it over as is.
      const { message, cause } = waited as Error & { cause?: { message?: unknown } };
      expect(`${message} ${String(cause?.message ?? '')}`).toMatch(/lock/i);
      expect(ms).toBeGreaterThanOrEqual(900);
      expect(ms).toBeLessThan(10_000);
    });
  },
);
