/**
 * SqlStore over Node's built-in `node:sqlite` DatabaseSync on a file: the whole store contract,
 * as better-sqlite3 passes it. Collected on the Node lines that have `node:sqlite` (22.16+; see
 * jest.config.ts and test-support/run-node-lines.ts), which `pnpm test` runs.
 */
import { DatabaseSync } from 'node:sqlite';
import { IdempotencyGuard } from '@webhook-idempotency/core';
import { ReceiptsAdmin, Schema, SqlStore } from '../src';
import { createExecutor } from '../src/connections/detect';
import { dialects, isDuplicateKey } from '../src/dialects';
import { sqlConformance } from './helpers/conformance';
import { sqliteFile } from './helpers/databases';
import { guardCases } from './helpers/guard-cases';
import { seedReceipts } from './helpers/seed';

const db = sqlConformance('SqlStore (node:sqlite file)', async () => {
  const db = new DatabaseSync(sqliteFile('node-sqlite'), { timeout: 5_000 });
  db.exec('PRAGMA journal_mode = WAL');
  return { db, close: async () => db.close() };
});

// The handle is the DatabaseSync itself, inside BEGIN IMMEDIATE; its API is synchronous.
guardCases(db, async (database, id) =>
  database.prepare('INSERT INTO orders (id) VALUES (?)').run(id),
);

describe('node:sqlite specifics', () => {
  it('is recognised as the sqlite dialect, and a handle kept past its transaction refuses to run', async () => {
    expect(createExecutor(db(), 1_000).dialect).toBe('sqlite');
    const guard = new IdempotencyGuard(new SqlStore(db(), { table: 'receipts_conformance' }), {
      transactional: true,
    });
    let kept: DatabaseSync | undefined;
    await guard.run({ provider: 'node-sqlite', externalId: 'kept-handle' }, ({ transaction }) => {
      kept = transaction as DatabaseSync;
      return 'done';
    });
    expect(() => kept!.prepare('SELECT 1')).toThrow(
      expect.objectContaining({ code: 'ERR_IDEMPOTENCY_TRANSACTION_CLOSED' }),
    );
  });

  it("a unique-index violation is recognised as one (node:sqlite's errcode)", () => {
    const fresh = new DatabaseSync(sqliteFile('node-sqlite-dup'));
    try {
      fresh.exec('CREATE TABLE t (id TEXT PRIMARY KEY, u TEXT UNIQUE)');
      fresh.prepare('INSERT INTO t (id, u) VALUES (?, ?)').run('a', 'x');
      const violation = (sql: string): unknown => {
        try {
          fresh.prepare(sql).run();
        } catch (error) {
          return error;
        }
        throw new Error('expected a constraint violation');
      };
      expect(isDuplicateKey(dialects.sqlite, violation("INSERT INTO t VALUES ('a', 'y')"))).toBe(
        true,
      );
      expect(isDuplicateKey(dialects.sqlite, violation("INSERT INTO t VALUES ('b', 'x')"))).toBe(
        true,
      );
      expect(isDuplicateKey(dialects.sqlite, violation('INSERT INTO missing VALUES (1)'))).toBe(
        false,
      );
    } finally {
      fresh.close();
    }
  });

  it('Schema.createTable works on a fresh file and the table answers a claim', async () => {
    const fresh = new DatabaseSync(sqliteFile('node-sqlite-fresh'));
    try {
      await Schema.createTable(fresh);
      const store = new SqlStore(fresh);
      const claim = await store.claim(
        { provider: 'p', externalId: 'e' },
        { now: 0, fingerprint: null },
      );
      expect(claim.won).toBe(true);
    } finally {
      fresh.close();
    }
  });

  it('ReceiptsAdmin finds the table missing, then reports and releases a stuck claim', async () => {
    const fresh = new DatabaseSync(sqliteFile('node-sqlite-admin'));
    try {
      const admin = new ReceiptsAdmin(fresh);
      expect(await admin.tableExists()).toBe(false);
      await Schema.createTable(fresh);
      expect(await admin.tableExists()).toBe(true);
      await seedReceipts(fresh, 'webhook_receipts', [
        { provider: 'p', externalId: 'done', status: 'completed', ageMs: 1_000, tookMs: 30 },
        { provider: 'p', externalId: 'stuck', status: 'processing', ageMs: 600_000 },
      ]);
      const { totals, window } = await admin.status({ staleAfterMs: 300_000, sinceMs: 3_600_000 });
      expect(totals).toMatchObject({ processing: 1, completed: 1, stuck: 1 });
      expect(window.handlerTime).toMatchObject({ sampled: 1, p50Ms: 30 });
      expect(
        await admin.release({ provider: 'p', externalId: 'stuck' }, { staleAfterMs: 300_000 }),
      ).toMatchObject({ released: true, receipt: { status: 'failed' } });
    } finally {
      fresh.close();
    }
  });
});
