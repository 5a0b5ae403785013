/** SqlStore over a raw better-sqlite3 Database on a file: the whole store contract. */
import Database from 'better-sqlite3';
import { IdempotencyGuard } from '@webhook-idempotency/core';
import { SqlStore } from '../src';
import { sqliteFile } from './helpers/databases';
import { sqlConformance } from './helpers/conformance';
import { guardCases } from './helpers/guard-cases';

const db = sqlConformance('SqlStore (better-sqlite3 file)', async () => {
  const db = new Database(sqliteFile('raw'));
  db.pragma('journal_mode = WAL');
  return { db, close: async () => void db.close() };
});

// The handle is the Database itself, inside BEGIN IMMEDIATE; its API is synchronous.
guardCases(db, async (database, id) =>
  database.prepare('INSERT INTO orders (id) VALUES (?)').run(id),
);

describe('one synchronous connection', () => {
  it('a claim made while a transaction is open waits for it and is not rolled back with it', async () => {
    const store = new SqlStore(db(), { table: 'receipts_conformance' });
    const key = { provider: 'mutex', externalId: 'evt_1' };
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const transaction = store.withTransaction(async () => {
      await gate;
      throw new Error('roll back');
    });
    let claimed = false;
    const claim = store.claim(key, { now: 0, fingerprint: null }).then((result) => {
      claimed = true;
      return result;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(claimed).toBe(false);
    release();
    await expect(transaction).rejects.toThrow('roll back');
    expect((await claim).won).toBe(true);
    expect(await store.find(key, { now: 0 })).toMatchObject({ status: 'processing' });
  });

  it("a handler answering after its deadline records nothing, not even inside the next request's transaction", async () => {
    const store = new SqlStore(db(), { table: 'receipts_conformance' });
    const guard = new IdempotencyGuard(store, { transactional: true, handlerTimeoutSeconds: 0.2 });
    const patient = new IdempotencyGuard(store, { transactional: true, handlerTimeoutSeconds: 10 });
    const late = { provider: 'late', externalId: 'evt_a' };
    const next = { provider: 'late', externalId: 'evt_b' };
    const claimA = await guard.claim(late);
    const claimB = await patient.claim(next);
    if (claimA.isReplay || claimB.isReplay) throw new Error('expected tickets');
    const openA = await claimA.begin();
    // B waits for the connection A holds; at A's deadline it gets it before A's `failed` write.
    const openingB = claimB.begin();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const openB = await openingB;
    // A's handler answers now, while B's transaction is open on the one connection.
    const lateCommit = openA.commit({ booked: 'late' });
    await openB.commit({ booked: 'b' });
    await expect(lateCommit).rejects.toMatchObject({ code: 'ERR_IDEMPOTENCY_HANDLER_TIMEOUT' });
    expect(await guard.find(late)).toMatchObject({ status: 'failed', response: null });
    expect(await guard.find(next)).toMatchObject({ status: 'completed' });
  });
});
