/**
 * Batched deliveries on real SQL stores (a SQLite file, PostgreSQL), through the engine every
 * adapter calls, in transactional mode: each item's business row and its receipt commit together,
 * so a retried, re-batched and concurrently duplicated batch books every item exactly once, also
 * when a handler fails mid-batch (docs/providers.md#batched-deliveries).
 */
import Database from 'better-sqlite3';
import pg from 'pg';
import {
  type HttpRequest,
  IdempotencyGuard,
  type ProviderPreset,
  type Store,
} from '@webhook-idempotency/core';
import { createEngine } from '@webhook-idempotency/core/adapter';
import { Schema, SqlStore, type SqlConnection } from '../src';
import { createExecutor } from '../src/connections/detect';
import { pgDatabase, sqliteFile } from './helpers/databases';

interface Event {
  readonly id: string;
}

/** A batch is a JSON array of events keyed by `id`, signed by a header. */
const preset: ProviderPreset = {
  provider: 'batchy',
  keyDescription: 'id of each event',
  needsRawBody: true,
  retentionDays: 3,
  key: () => undefined,
  verify: (request) => request.headers['x-sig'] === 'good',
  items: (request) =>
    (JSON.parse(request.rawBody!.toString()) as Event[]).map((event) => ({
      key: event.id,
      value: event,
    })),
};

const post = (ids: readonly string[]): HttpRequest => ({
  method: 'POST',
  url: '/hook',
  headers: { 'x-sig': 'good' },
  rawBody: Buffer.from(JSON.stringify(ids.map((id) => ({ id })))),
  body: undefined,
  native: {},
});

interface Kind {
  readonly name: string;
  open(): Promise<{ db: SqlConnection; close(): Promise<void> }>;
  /** Writes one business row through the item's transaction handle. */
  book(transaction: unknown, id: string): Promise<unknown>;
}

const kinds: readonly Kind[] = [
  {
    name: 'SQLite file (better-sqlite3)',
    async open() {
      const db = new Database(sqliteFile('batches'));
      db.pragma('journal_mode = WAL');
      return { db, close: async () => void db.close() };
    },
    // The handle is the Database itself inside BEGIN IMMEDIATE.
    book: async (transaction, id) =>
      (transaction as Database.Database).prepare('INSERT INTO booked (id) VALUES (?)').run(id),
  },
  {
    name: 'PostgreSQL (pg Pool)',
    async open() {
      const db = new pg.Pool({ connectionString: await pgDatabase('wi_batches'), max: 8 });
      return { db, close: () => db.end() };
    },
    book: (transaction, id) =>
      (transaction as pg.PoolClient).query('INSERT INTO booked (id) VALUES ($1)', [id]),
  },
];

describe.each(kinds)('batched deliveries on $name', (kind) => {
  let opened: Awaited<ReturnType<Kind['open']>>;
  let engine: ReturnType<typeof createEngine>;
  let guard: IdempotencyGuard<unknown>;
  let failOnce: Set<string>;

  beforeAll(async () => {
    opened = await kind.open();
    await Schema.createTable(opened.db);
    // No unique key: a second booking of an item would be a second row, which the counts catch.
    await createExecutor(opened.db, 10_000).query('CREATE TABLE booked (id VARCHAR(100))', []);
    guard = new IdempotencyGuard(new SqlStore(opened.db) as Store<unknown>, {
      transactional: true,
    });
    engine = createEngine({ guard, preset });
  });
  afterAll(() => opened.close());
  beforeEach(() => {
    failOnce = new Set();
  });

  const rows = async (): Promise<Record<string, number>> => {
    const { rows } = await createExecutor(opened.db, 10_000).query(
      'SELECT id, COUNT(*) AS n FROM booked GROUP BY id',
      [],
    );
    return Object.fromEntries(rows.map((row) => [String(row.id), Number(row.n)]));
  };

  /** What an adapter does for one request; the status the provider would see. */
  async function deliver(ids: readonly string[]): Promise<number> {
    const decision = await engine.begin(post(ids));
    if (decision.action === 'respond') return decision.response.status;
    if (decision.action !== 'run') throw new Error('the batch passed unguarded');
    try {
      await decision.idempotency.batch!.each<Event>(async (event, context) => {
        await kind.book(context.transaction, event.id);
        // Yield, so concurrent requests interleave with the open transaction.
        await new Promise((resolve) => setTimeout(resolve, 2));
        if (failOnce.delete(event.id)) throw new Error(`ledger refused ${event.id}`);
      });
    } catch (error) {
      const answer = await decision.run.abort(error);
      return answer?.status ?? 500;
    }
    const replacement = await decision.run.finish({
      status: 200,
      headers: { 'content-type': 'text/plain' },
      body: Buffer.from('[accepted]'),
    });
    return replacement?.status ?? 200;
  }

  it('a retried and a re-batched batch book each item once', async () => {
    expect(await deliver(['a1', 'a2', 'a3'])).toBe(200);
    expect(await deliver(['a1', 'a2', 'a3'])).toBe(200);
    expect(await deliver(['a3', 'a1', 'a2'])).toBe(200);
    expect(await deliver(['a2', 'a3', 'a4'])).toBe(200);
    expect(await rows()).toMatchObject({ a1: 1, a2: 1, a3: 1, a4: 1 });
    const receipt = await guard.find({ provider: 'batchy', externalId: 'a2' });
    expect(receipt).toMatchObject({ status: 'completed', attempts: 1 });
  });

  it('a handler failing mid-batch: the items before it are committed, its own write is rolled back, the retry runs the rest', async () => {
    failOnce.add('b2');
    expect(await deliver(['b1', 'b2', 'b3'])).toBe(500);
    const after = await rows();
    expect([after.b1, after.b2, after.b3]).toEqual([1, undefined, undefined]);
    expect(await guard.find({ provider: 'batchy', externalId: 'b2' })).toMatchObject({
      status: 'failed',
    });
    expect(await deliver(['b1', 'b2', 'b3'])).toBe(200);
    expect(await rows()).toMatchObject({ b1: 1, b2: 1, b3: 1 });
  });

  it('concurrent duplicates and overlapping re-batches: each item booked once, the losers answered 409 until done', async () => {
    const batches = [
      ['c1', 'c2', 'c3', 'c4'],
      ['c3', 'c4', 'c5', 'c6'],
      ['c1', 'c2', 'c3', 'c4'],
      ['c6', 'c5', 'c4', 'c3'],
      ['c2', 'c4', 'c6'],
      ['c1', 'c2', 'c3', 'c4'],
    ];
    failOnce.add('c5');
    const statuses = await Promise.all(batches.map((ids) => deliver(ids)));
    for (const status of statuses) expect([200, 409, 500]).toContain(status);
    // The provider retries every batch not answered 2xx, until it is.
    for (const [index, ids] of batches.entries()) {
      let status = statuses[index]!;
      for (let round = 0; status !== 200 && round < 5; round++) status = await deliver(ids);
      expect(status).toBe(200);
    }
    expect(await rows()).toMatchObject({ c1: 1, c2: 1, c3: 1, c4: 1, c5: 1, c6: 1 });
  });
});
