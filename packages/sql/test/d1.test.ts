/**
 * D1Store on a real D1 database in workerd, through miniflare (helpers/d1.ts): the whole store
 * contract, then what only D1 has: batched completion with the business writes, the migration
 * file. Collected on Node >= 22, which miniflare needs (jest.config.ts); `pnpm test` runs it once,
 * on the newest Node line (test-support/run-node-lines.ts).
 */
import { ClaimLost, ConfigError, IdempotencyGuard, RequestKey } from '@webhook-idempotency/core';
import { runStoreConformance } from '@webhook-idempotency/core/testing';
import { Schema } from '../src';
import { D1Store, type D1DatabaseLike } from '../src/d1';
import { startD1, type TestD1 } from './helpers/d1';

const TABLE = 'receipts_conformance';
let d1: TestD1 | undefined;
const db = (): D1DatabaseLike => {
  if (!d1) throw new Error('D1 not started yet');
  return d1.db;
};

/** Runs a migration file's statements in order, as `wrangler d1 migrations apply` does. */
async function applyMigration(text: string): Promise<void> {
  const statements = text
    .split(/;\s*\n/)
    .map((statement) => statement.trim())
    .filter(Boolean);
  for (const statement of statements) await db().prepare(statement).run();
}

const rows = async (sql: string, ...params: unknown[]) =>
  ((
    await db()
      .prepare(sql)
      .bind(...params)
      .all()
  ).results ?? []) as Record<string, unknown>[];

beforeAll(async () => {
  d1 = await startD1();
  await applyMigration(Schema.d1Migration({ table: TABLE }));
  await applyMigration(Schema.d1Migration());
  await db().prepare('CREATE TABLE orders (id TEXT PRIMARY KEY, amount INTEGER NOT NULL)').run();
});

afterAll(async () => {
  await d1?.close();
});

runStoreConformance({
  name: 'D1Store (D1 in workerd)',
  async makeStore() {
    await db().prepare(`DELETE FROM "${TABLE}"`).run();
    return {
      store: new D1Store(db(), { table: TABLE }),
      // D1's clock cannot be moved: every stored timestamp moves back instead.
      async advance(ms) {
        await db()
          .prepare(
            `UPDATE "${TABLE}" SET claimed_at = claimed_at - ?, finished_at = finished_at - ?`,
          )
          .bind(ms, ms)
          .run();
      },
    };
  },
});

describe('D1Store specifics', () => {
  let run = 0;
  let prefix = '';
  beforeEach(() => {
    prefix = `d1-${++run}-`;
  });
  const store = () => new D1Store(db());
  const orders = async () =>
    (await rows('SELECT id FROM orders WHERE id LIKE ? ORDER BY id', `${prefix}%`)).map(
      (row) => row.id,
    );
  const order = (id: string, amount = 10) =>
    db().prepare('INSERT INTO orders (id, amount) VALUES (?, ?)').bind(id, amount);

  it('refuses what is not a D1 binding, and transactional mode, naming the option', () => {
    expect(() => new D1Store({} as D1DatabaseLike)).toThrow(
      expect.objectContaining({ name: ConfigError.name, message: expect.stringMatching(/db/) }),
    );
    expect(() => new D1Store(db(), { table: 'x; DROP TABLE y' })).toThrow(/table/);
    expect(store().capabilities).toEqual({
      crossProcess: true,
      transactional: false,
      clock: 'store',
      ignoredCounts: true,
    });
    expect(() => new IdempotencyGuard(store(), { transactional: true })).toThrow(
      expect.objectContaining({
        name: ConfigError.name,
        message: expect.stringMatching(/"transactional"/),
      }),
    );
  });

  it('the migration file is the SQLite DDL, and applying it again changes nothing', async () => {
    expect(Schema.d1Migration()).toBe(`${Schema.statements('sqlite').join(';\n\n')};\n`);
    await applyMigration(Schema.d1Migration());
    const tables = await rows(
      "SELECT name FROM sqlite_master WHERE tbl_name = 'webhook_receipts' ORDER BY name",
    );
    expect(tables.map((row) => row.name)).toEqual([
      'sqlite_autoindex_webhook_receipts_1',
      'webhook_receipts',
      'webhook_receipts_claimed_idx',
      'webhook_receipts_finished_idx',
      'webhook_receipts_status_idx',
    ]);
  });

  it('claim.complete(result, writes): the business writes and the receipt commit in one batch; a duplicate is replayed', async () => {
    const guard = new IdempotencyGuard(store());
    const key = new RequestKey('github', `${prefix}delivery`);
    const claim = await guard.claim(key);
    if (claim.isReplay) throw new Error('expected a ticket');
    await claim.complete({ booked: `${prefix}a` }, [order(`${prefix}a`), order(`${prefix}b`)]);
    expect(await orders()).toEqual([`${prefix}a`, `${prefix}b`]);
    const again = await guard.claim(key);
    expect(again).toMatchObject({ isReplay: true, response: { booked: `${prefix}a` } });
  });

  it('a claim taken over meanwhile writes nothing of its batch: ClaimLost, and the new owner books once', async () => {
    const d1 = store();
    const guard = new IdempotencyGuard(d1, { staleAfterSeconds: 1 });
    const key = new RequestKey('github', `${prefix}stalled`);
    const stalled = await guard.claim(key);
    if (stalled.isReplay) throw new Error('expected a ticket');
    // The first worker stalls past the stale threshold; the redelivery takes the claim over.
    await db()
      .prepare('UPDATE webhook_receipts SET claimed_at = claimed_at - 5000 WHERE external_id = ?')
      .bind(key.externalId)
      .run();
    const owner = await guard.claim(key);
    if (owner.isReplay) throw new Error('expected a ticket');
    await expect(stalled.complete('late', [order(`${prefix}late`)])).rejects.toBeInstanceOf(
      ClaimLost,
    );
    await owner.complete('booked', [order(`${prefix}owner`)]);
    expect(await orders()).toEqual([`${prefix}owner`]);
    expect(await guard.find(key)).toMatchObject({
      status: 'completed',
      attempts: 2,
      response: '"booked"',
    });
  });

  it('a business write that fails writes nothing; the receipt is failed with the error, so the next delivery runs again', async () => {
    const guard = new IdempotencyGuard(store());
    const key = new RequestKey('github', `${prefix}conflict`);
    await order(`${prefix}taken`).run();
    const claim = await guard.claim(key);
    if (claim.isReplay) throw new Error('expected a ticket');
    await expect(
      claim.complete('x', [order(`${prefix}new`), order(`${prefix}taken`)]),
    ).rejects.toMatchObject({ code: 'ERR_IDEMPOTENCY_STORE' });
    expect(await orders()).toEqual([`${prefix}taken`]);
    expect(await guard.find(key)).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/UNIQUE constraint failed: orders\.id/),
    });
    const retry = await guard.claim(key);
    expect(retry).toMatchObject({ isReplay: false, context: { attempts: 2, isRetry: true } });
  });

  it('a batch that committed but whose answer was lost is taken as completed (the receipt is read back)', async () => {
    // The real binding, whose batch() runs and then loses its answer, as a dropped connection would.
    const lossy: D1DatabaseLike = {
      prepare: (sql) => db().prepare(sql),
      async batch(statements) {
        await db().batch(statements);
        throw new Error('D1_ERROR: Network connection lost.');
      },
    };
    const writer = new D1Store(lossy);
    const key = { provider: 'github', externalId: `${prefix}lost-answer` };
    const { receipt } = await store().claim(key, { now: 0, fingerprint: null });
    const input = { now: 0, attempts: 1, claimedAt: receipt.claimedAt, response: 'ok' };
    expect(await writer.complete(key, input, [order(`${prefix}once`)])).toBe(true);
    expect(await orders()).toEqual([`${prefix}once`]);
    // And a batch that never ran, on a claim still held, is no completion.
    const failing: D1DatabaseLike = {
      prepare: (sql) => db().prepare(sql),
      batch: async () => {
        throw new Error('D1_ERROR: Network connection lost.');
      },
    };
    const other = { provider: 'github', externalId: `${prefix}never-ran` };
    const held = await store().claim(other, { now: 0, fingerprint: null });
    await expect(
      new D1Store(failing).complete(
        other,
        { now: 0, attempts: 1, claimedAt: held.receipt.claimedAt, response: 'ok' },
        [order(`${prefix}never`)],
      ),
    ).rejects.toThrow('Network connection lost');
    expect(await orders()).toEqual([`${prefix}once`]);
    expect(await store().find(other, { now: 0 })).toMatchObject({ status: 'failed' });
  });
});
