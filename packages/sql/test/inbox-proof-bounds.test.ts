/**
 * The inbox proof's bounds, beside the storm proof (inbox-proof.test.ts): (a) two workers over a
 * receipts store without transactions (InMemoryStore), where the first attempt of about one
 * delivery in four overruns its lease; (b) a worker stopped while its claim (and its settle
 * writes) wait on a table lock, and another worker that drains the rest once the lock is gone.
 * Either way every delivery is done and booked exactly once, and none is dead or charged a
 * failure it did not have. `pnpm test:proof` (WI_PROOF=1) and `pnpm test:soak` run ten times as many.
 */
import { InMemoryStore } from '@webhook-idempotency/core';
import {
  createInboxWorker,
  type InboxEvent,
  type InboxHandler,
} from '@webhook-idempotency/core/inbox';
import Database from 'better-sqlite3';
import pg from 'pg';
import { InboxSchema, Schema, SqlInbox, SqlStore } from '../src';
import { pgDatabase, sqliteFile } from './helpers/databases';
import { bySize } from '@webhook-idempotency/test-support/proof-size';

const SIZE = bySize({ small: 1, full: 10, soak: 10 });
const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason);
    });
  });

/** Polls `check` until it holds or `ms` have passed; resolves with its last answer. */
async function until(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  for (let waited = 0; waited < ms; waited += 50) {
    if (await check()) return true;
    await sleep(50);
  }
  return check();
}

const enqueueAll = async (inbox: SqlInbox, ids: readonly string[], groups = 0) => {
  for (const [i, externalId] of ids.entries())
    await inbox.enqueue({
      provider: 'stripe',
      externalId,
      orderingKey: groups > 0 ? `group_${i % groups}` : null,
      headers: {},
      body: Buffer.from(externalId),
    });
};

it('(a) handlers that overrun their lease on a store without transactions: each delivery booked once, none dead', async () => {
  const db = new Database(sqliteFile('inbox_proof_bounds'));
  db.pragma('journal_mode = WAL');
  try {
    await InboxSchema.createTable(db);
    const inbox = new SqlInbox(db);
    const ids = Array.from({ length: 24 * SIZE }, (_, i) => `evt_${i}`);
    await enqueueAll(inbox, ids);
    const booked = new Map<string, number>();
    const overran = new Set<string>();
    const handler: InboxHandler = async (delivery, { signal, attempts }) => {
      const id = delivery.externalId;
      // One in four overruns its 1 s lease on its first attempt; it honours its signal.
      if (attempts === 1 && Number(id.slice(4)) % 4 === 0) {
        overran.add(id);
        await sleep(2500, signal);
      } else await sleep(Math.floor(Math.random() * 20), signal);
      booked.set(id, (booked.get(id) ?? 0) + 1);
    };
    const events: InboxEvent[] = [];
    const store = new InMemoryStore();
    const workers = [0, 1].map(() =>
      createInboxWorker({
        inbox,
        store,
        handlers: { stripe: handler },
        visibilityTimeoutSeconds: 1,
        concurrency: 4,
        pollIntervalMs: 20,
        backoffBaseMs: 20,
        maxFailures: 3,
        onEvent: (event) => void events.push(event),
      }),
    );
    for (const w of workers) w.start();
    const drained = await until(
      async () => (await inbox.list({ status: 'done', limit: 1000 })).length === ids.length,
      60_000,
    );
    await Promise.all(workers.map((w) => w.stop()));
    expect(drained).toBe(true);
    expect(overran.size).toBe(6 * SIZE);
    for (const id of ids) expect([id, booked.get(id)]).toEqual([id, 1]);
    expect(events.filter((e) => e.type === 'dead')).toEqual([]);
    const all = await inbox.list({ limit: 1000 });
    for (const d of all) expect(d.failures).toBe(overran.has(d.externalId) ? 1 : 0);
  } finally {
    db.close();
  }
});

it('(b) a worker stopped while its lease call and writes wait on a table lock: another drains the rest, each booked once, none dead or charged', async () => {
  const url = await pgDatabase('wi_inbox_proof_bounds');
  const pool = new pg.Pool({ connectionString: url, max: 12 });
  const locker = new pg.Client({ connectionString: url });
  await locker.connect();
  try {
    await InboxSchema.createTable(pool);
    await Schema.createTable(pool);
    await pool.query('CREATE TABLE effects (id TEXT NOT NULL)');
    const inbox = new SqlInbox(pool);
    const ids = Array.from({ length: 40 * SIZE }, (_, i) => `evt_${i}`);
    // Four ordering groups and eight slots: at most four run at once, so the worker always has
    // free slots and keeps claiming; a claim is waiting on the lock when stop() is called.
    await enqueueAll(inbox, ids, 4);
    const handler: InboxHandler<pg.PoolClient> = async (delivery, { transaction, signal }) => {
      await sleep(20, signal);
      await transaction!.query('INSERT INTO effects (id) VALUES ($1)', [delivery.externalId]);
    };
    const events: InboxEvent[] = [];
    const worker = () =>
      createInboxWorker({
        inbox,
        store: new SqlStore(pool),
        handlers: { stripe: handler },
        concurrency: 8,
        pollIntervalMs: 20,
        onEvent: (event) => void events.push(event),
      });
    const first = worker();
    first.start();
    expect(
      await until(async () => (await inbox.list({ status: 'done' })).length >= 4, 20_000),
    ).toBe(true);
    // A migration locks the table: the next claim and the settle writes in flight wait on it.
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE webhook_inbox IN ACCESS EXCLUSIVE MODE');
    await sleep(200);
    let stopped: string;
    let timer: NodeJS.Timeout | undefined;
    try {
      stopped = await Promise.race([
        first.stop({ timeoutMs: 300 }).then(() => 'stopped'),
        new Promise<string>((resolve) => {
          timer = setTimeout(() => resolve('still blocked'), 20_000);
        }),
      ]);
    } finally {
      clearTimeout(timer);
      await locker.query('ROLLBACK');
    }
    expect(stopped).toBe('stopped');
    expect(events).toContainEqual(
      expect.objectContaining({
        type: 'store-error',
        operation: 'lease',
        error: expect.objectContaining({ message: expect.stringContaining('stop:') }),
      }),
    );
    const second = worker();
    second.start();
    const drained = await until(
      async () => (await inbox.list({ status: 'done', limit: 1000 })).length === ids.length,
      60_000,
    );
    await second.stop();
    expect(drained).toBe(true);
    const { rows } = await pool.query<{ id: string; n: string }>(
      'SELECT id, COUNT(*) AS n FROM effects GROUP BY id',
    );
    expect(rows).toHaveLength(ids.length);
    for (const row of rows) expect([row.id, Number(row.n)]).toEqual([row.id, 1]);
    expect(events.filter((e) => e.type === 'dead' || e.type === 'retry')).toEqual([]);
    for (const d of await inbox.list({ limit: 1000 })) expect(d.failures).toBe(0);
  } finally {
    await locker.end();
    await pool.end();
  }
});
