/**
 * SqlInbox's group commit on every kind of connection: concurrent deliveries share transactions,
 * each caller learns whether its own delivery was stored, duplicates inside one batch and against
 * the table are told apart, and a delivery the database refuses fails alone. (That no answer comes
 * before its row is durable is proven with killed processes in
 * packages/reliability/test/group-commit-durability.test.ts.)
 */
import type { NewDelivery } from '@webhook-idempotency/core/inbox';
import { InboxSchema, SqlInbox } from '../src';
import { driverKinds, type OpenedKind } from './helpers/kinds';

const delivery = (externalId: string, extra: Partial<NewDelivery> = {}): NewDelivery => ({
  provider: 'stripe',
  externalId,
  orderingKey: null,
  headers: { 'content-type': 'application/json' },
  body: Buffer.from(`{"id":"${externalId}"}`),
  ...extra,
});

describe.each(driverKinds('inbox_group_commit'))('group commit (%s)', (_name, open) => {
  let opened: OpenedKind;
  let table = 0;
  const commits: number[] = [];
  const fresh = async (options: ConstructorParameters<typeof SqlInbox>[1] = {}) => {
    const name = `inbox_gc_${++table}`;
    await InboxSchema.createTable(opened.db, { table: name });
    commits.length = 0;
    return new SqlInbox(opened.db, {
      table: name,
      groupCommit: { onCommit: (size) => commits.push(size) },
      ...options,
    });
  };

  beforeAll(async () => {
    opened = await open();
  });
  afterAll(() => opened.close());

  it('concurrent deliveries share transactions; each caller is told about its own row', async () => {
    const inbox = await fresh();
    expect(await inbox.enqueue(delivery('evt_old'))).toBe(true);
    commits.length = 0;
    const ids = Array.from({ length: 120 }, (_, i) => `evt_${i}`);
    // Every id once, ten of them twice in the same burst, and one already stored.
    const burst = [...ids, ...ids.slice(0, 10), 'evt_old'];
    const results = await Promise.all(burst.map((id) => inbox.enqueue(delivery(id))));
    const storedBy = new Map<string, number>();
    burst.forEach((id, i) => {
      if (results[i]) storedBy.set(id, (storedBy.get(id) ?? 0) + 1);
    });
    expect([...storedBy.keys()].sort()).toEqual([...ids].sort());
    expect([...storedBy.values()].every((n) => n === 1)).toBe(true);
    expect(results.filter((stored) => !stored)).toHaveLength(11);
    const listed = await inbox.list({ limit: 500 });
    expect(listed).toHaveLength(121);
    // Every row was committed, and some transactions held more than one.
    expect(commits.reduce((sum, size) => sum + size, 0)).toBe(burst.length);
    expect(Math.max(...commits)).toBeGreaterThan(1);
    expect(Math.max(...commits)).toBeLessThanOrEqual(64);
  });

  it('a delivery the database refuses fails alone; the rest of its batch is stored', async () => {
    const inbox = await fresh();
    const burst = Array.from({ length: 30 }, (_, i) =>
      // NOT NULL: every dialect refuses this row, whatever the batch around it.
      i === 7 ? delivery('evt_bad', { body: null as never }) : delivery(`evt_${i}`),
    );
    const results = await Promise.allSettled(burst.map((d) => inbox.enqueue(d)));
    expect(results[7]!.status).toBe('rejected');
    expect(results.filter((r) => r.status === 'fulfilled' && r.value === true)).toHaveLength(29);
    expect(await inbox.list({ limit: 100 })).toHaveLength(29);
  });

  it('groupCommit: false writes each delivery on its own', async () => {
    const inbox = await fresh({ groupCommit: false });
    const results = await Promise.all(
      ['evt_a', 'evt_b', 'evt_a'].map((id) => inbox.enqueue(delivery(id))),
    );
    expect(results.filter(Boolean)).toHaveLength(2);
    expect(commits).toEqual([]);
  });
});

describe('group commit options', () => {
  const db = { prepare() {}, pragma() {}, exec() {} };
  it('refuses a bad group size or observer, naming it', () => {
    for (const groupSize of [0, 1.5, 1001, Number.NaN]) {
      expect(() => new SqlInbox(db as never, { groupCommit: { groupSize } })).toThrow(
        expect.objectContaining({ option: 'groupCommit.groupSize' }),
      );
      // maxBatch, its deprecated name, is checked as groupSize, and a refusal names maxBatch.
      expect(() => new SqlInbox(db as never, { groupCommit: { maxBatch: groupSize } })).toThrow(
        expect.objectContaining({ option: 'groupCommit.maxBatch' }),
      );
    }
    expect(
      () => new SqlInbox(db as never, { groupCommit: { groupSize: 8, maxBatch: 16 } }),
    ).toThrow(
      expect.objectContaining({
        option: 'groupCommit.groupSize',
        message: expect.stringContaining('"groupCommit.maxBatch"'),
      }),
    );
    expect(() => new SqlInbox(db as never, { groupCommit: 'on' as never })).toThrow(
      expect.objectContaining({ option: 'groupCommit' }),
    );
    expect(() => new SqlInbox(db as never, { groupCommit: { onCommit: 'log' as never } })).toThrow(
      expect.objectContaining({ option: 'groupCommit.onCommit' }),
    );
  });
});
