/**
 * SqlStore over Bun's built-in `bun:sqlite` Database on a file, inside Bun and from the packed
 * tarballs: the whole store contract (core's conformance suite, registered with `bun test`'s
 * describe/it/expect), then transactional completion through the guard. Not a jest file:
 * tests/runtimes/bun.test.ts bundles it (`../src` becomes `@webhook-idempotency/sql`) and runs it
 * with `bun test`.
 */
import { Database } from 'bun:sqlite';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IdempotencyGuard } from '@webhook-idempotency/core';
import { runStoreConformance } from '@webhook-idempotency/core/testing';
import { ReceiptsAdmin, Schema, SqlStore } from '../src';

const dir = mkdtempSync(join(tmpdir(), 'wi-bun-sqlite-'));
let files = 0;
/** A new Database on a file of its own, WAL, waiting up to 5 s for another connection's lock. */
function open(): Database {
  const db = new Database(join(dir, `receipts-${++files}.db`));
  db.exec('PRAGMA journal_mode = WAL');
  db.exec('PRAGMA busy_timeout = 5000');
  return db;
}

const opened: Database[] = [];
afterAll(() => {
  for (const db of opened) db.close();
  rmSync(dir, { recursive: true, force: true });
});

const table = 'receipts_conformance';
const db = open();
opened.push(db);
beforeAll(async () => {
  await Schema.createTable(db, { table });
});

// The database's clock cannot be faked: time passes by moving every stored timestamp back.
runStoreConformance({
  name: 'SqlStore (bun:sqlite file)',
  makeStore() {
    db.exec(`DELETE FROM ${table}`);
    return {
      store: new SqlStore(db, { table }),
      async advance(ms: number) {
        db.prepare(
          `UPDATE ${table} SET claimed_at = claimed_at - ?, finished_at = finished_at - ?`,
        ).run(ms, ms);
      },
    };
  },
});

describe('bun:sqlite through IdempotencyGuard (transactional)', () => {
  const fresh = async () => {
    const handle = open();
    opened.push(handle);
    handle.exec('CREATE TABLE orders (id TEXT NOT NULL PRIMARY KEY)');
    await Schema.createTable(handle);
    const guard = new IdempotencyGuard(new SqlStore(handle), { transactional: true });
    const orders = () => handle.prepare('SELECT COUNT(*) AS n FROM orders').all()[0]!.n;
    return { handle, guard, orders };
  };

  it('commits the business write and `completed` together; a duplicate is replayed without running again', async () => {
    const { guard, orders } = await fresh();
    const key = { provider: 'bun', externalId: 'order-1' };
    let runs = 0;
    const handler = async ({ transaction }: { transaction: Database | undefined }) => {
      runs++;
      // The handle is the Database itself, inside BEGIN IMMEDIATE.
      expect(transaction!.inTransaction).toBe(true);
      transaction!.prepare('INSERT INTO orders (id) VALUES (?)').run('order-1');
      return { ok: true };
    };
    const first = await guard.run(key, handler);
    const again = await guard.run(key, handler);
    expect([first.isReplay, again.isReplay, runs]).toEqual([false, true, 1]);
    expect(again.response).toEqual({ ok: true });
    expect(orders()).toBe(1);
    expect(await guard.find(key)).toMatchObject({ status: 'completed', attempts: 1 });
  });

  it('a handler that throws rolls its write back with the receipt failed; the next delivery runs again', async () => {
    const { guard, orders } = await fresh();
    const key = { provider: 'bun', externalId: 'order-2' };
    let runs = 0;
    const handler = async ({ transaction }: { transaction: Database | undefined }) => {
      transaction!.prepare('INSERT INTO orders (id) VALUES (?)').run('order-2');
      if (++runs === 1) throw new Error('payment service down');
      return 'ok';
    };
    await expect(guard.run(key, handler)).rejects.toThrow('payment service down');
    expect(orders()).toBe(0);
    expect(await guard.find(key)).toMatchObject({ status: 'failed', attempts: 1 });
    expect((await guard.run(key, handler)).response).toBe('ok');
    expect(orders()).toBe(1);
  });

  it('concurrent deliveries of other keys take turns on the one connection and all commit', async () => {
    const { guard, orders } = await fresh();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        guard.run({ provider: 'bun', externalId: `many-${i}` }, async ({ transaction }) => {
          await new Promise((resolve) => setTimeout(resolve, 1));
          (transaction as Database).prepare('INSERT INTO orders (id) VALUES (?)').run(`many-${i}`);
          return i;
        }),
      ),
    );
    expect(results.map((outcome) => outcome.response)).toEqual(
      Array.from({ length: 20 }, (_, i) => i),
    );
    expect(orders()).toBe(20);
  });

  it('a handle kept past its transaction refuses to run', async () => {
    const { guard } = await fresh();
    let kept: Database | undefined;
    await guard.run({ provider: 'bun', externalId: 'kept-handle' }, ({ transaction }) => {
      kept = transaction as Database;
      return 'done';
    });
    expect(() => kept!.prepare('SELECT 1')).toThrow(
      expect.objectContaining({ code: 'ERR_IDEMPOTENCY_TRANSACTION_CLOSED' }),
    );
  });

  it('ReceiptsAdmin finds the table missing, then counts what the guard stored', async () => {
    const handle = open();
    opened.push(handle);
    const admin = new ReceiptsAdmin(handle);
    expect(await admin.tableExists()).toBe(false);
    await Schema.createTable(handle);
    expect(await admin.tableExists()).toBe(true);
    await new IdempotencyGuard(new SqlStore(handle)).run(
      { provider: 'bun', externalId: 'counted' },
      () => 'ok',
    );
    const { totals } = await admin.status({ staleAfterMs: 300_000, sinceMs: 3_600_000 });
    expect(totals).toMatchObject({ completed: 1, processing: 0 });
  });
});
