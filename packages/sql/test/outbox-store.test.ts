/**
 * SqlOutbox (issue 43): `Outbox.add` in a transactional guard's run over a `SqlStore`, on each
 * database through its driver and through an ORM, by one suite: a committed run leaves its message
 * pending in the outbox table, its columns as the outbox maps them onto the inbox's, for the
 * inbox's lease of its sender; a run that throws leaves none; a name recorded twice is one row and
 * the transaction goes on; a run without a transaction is refused. The inbox store contract on the
 * outbox as it is built, on one kind. Then what needs no database of each kind: the refusals of an
 * outbox without its receipts store, and `OutboxSchema`. No dialect is named below.
 */
import Database from 'better-sqlite3';
import { IdempotencyGuard, RequestKey } from '@webhook-idempotency/core';
import type { NewDelivery } from '@webhook-idempotency/core/inbox';
import { Outbox } from '@webhook-idempotency/core/outbox';
import { runInboxStoreConformance } from '@webhook-idempotency/core/testing';
import {
  InboxSchema,
  OutboxSchema,
  Schema,
  type SqlConnection,
  SqlInbox,
  SqlOutbox,
  SqlStore,
} from '../src';
import { driverKinds, ORM_SAMPLE, ormKinds, type OpenedKind } from './helpers/kinds';

/** One database per driver, and the package's one ORM per database. */
const DRIVERS = ['pg Pool', 'mysql2 promise pool, MariaDB', 'better-sqlite3 file'];
const LEASE_MS = 60_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The receipts store, the outbox on its connection, and a transactional guard over the store. */
function outboxOn(db: SqlConnection) {
  const store = new SqlStore(db);
  const messages = new SqlOutbox(db, { receipts: store });
  return {
    messages,
    outbox: new Outbox({ store: messages }),
    guard: new IdempotencyGuard(store, { transactional: true }),
    plainGuard: new IdempotencyGuard(store),
  };
}

const bodyOf = (delivery: { body: Buffer }) => JSON.parse(delivery.body.toString('utf8'));

describe.each([
  ...driverKinds('outbox').filter(([name]) => DRIVERS.includes(name)),
  ...ormKinds('outbox').filter(([name]) => ORM_SAMPLE.includes(name)),
])('SqlOutbox (%s)', (_name, open) => {
  let opened: OpenedKind;
  let on: ReturnType<typeof outboxOn>;
  let n = 0;
  const receipt = () => new RequestKey('stripe', `evt_${++n}`);

  beforeAll(async () => {
    opened = await open();
    await Schema.createTable(opened.db);
    await OutboxSchema.createTable(opened.db);
    on = outboxOn(opened.db);
  });
  afterAll(() => opened.close());

  it('a committed run leaves its message pending in webhook_outbox: the sender, the effect key, the receipt, the JSON; the lease of its sender takes it', async () => {
    const key = receipt();
    const payload = {
      url: 'http://127.0.0.1:1/refunds',
      json: { amount: 1250, note: 'crème brûlée €' },
    };
    let effectKey = '';
    let recorded = '';
    await on.guard.run(key, async (context) => {
      effectKey = context.effectKey('refund');
      recorded = await on.outbox.add(context, { name: 'refund', sender: 'http', payload });
      return 'booked';
    });
    expect(recorded).toMatch(UUID);
    expect(recorded).toBe(effectKey);
    expect(on.messages.table).toBe('webhook_outbox');
    expect(await on.messages.find('http', recorded)).toMatchObject({
      status: 'pending',
      orderingKey: null,
      leases: 0,
      failures: 0,
      finishedAt: null,
    });
    const leased = await on.messages.lease({ providers: ['http'], limit: 10, leaseMs: LEASE_MS });
    expect(leased).toHaveLength(1);
    const [message] = leased as [(typeof leased)[0]];
    expect(message).toMatchObject({
      provider: 'http',
      externalId: recorded,
      orderingKey: null,
      headers: {
        'receipt-provider': 'stripe',
        'receipt-id': key.externalId,
        'effect-name': 'refund',
      },
      leases: 1,
    });
    expect(bodyOf(message)).toEqual(payload);
    expect(await on.messages.complete(message)).toBe(true);
    expect(await on.messages.find('http', recorded)).toMatchObject({ status: 'done' });
  });

  it('a run that throws after add leaves no message', async () => {
    const boom = new Error('the card was declined');
    let recorded = '';
    await expect(
      on.guard.run(receipt(), async (context) => {
        recorded = await on.outbox.add(context, {
          name: 'receipt-email',
          sender: 'email',
          payload: { to: 'a@example.com', subject: 'Paid' },
        });
        throw boom;
      }),
    ).rejects.toBe(boom);
    expect(recorded).toMatch(UUID);
    expect(await on.messages.find('email', recorded)).toBeNull();
  });

  it('a name recorded twice is one row, the first; enqueueIn says so with false, and the transaction goes on to commit', async () => {
    const results: { first: string; second: string; other: string; direct: boolean[] } = {
      first: '',
      second: '',
      other: '',
      direct: [],
    };
    await on.guard.run(receipt(), async (context) => {
      const note = (sequence: number) => ({
        name: 'notify',
        sender: 'email',
        payload: { sequence },
      });
      results.first = await on.outbox.add(context, note(1));
      results.second = await on.outbox.add(context, note(2));
      const row: NewDelivery = {
        provider: 'email',
        externalId: context.effectKey('direct'),
        orderingKey: null,
        headers: {},
        body: Buffer.from('{}'),
      };
      results.direct.push(await on.messages.enqueueIn(row, context.transaction));
      results.direct.push(await on.messages.enqueueIn(row, context.transaction));
      results.other = await on.outbox.add(context, { ...note(3), name: 'notify-again' });
      return 'ok';
    });
    expect(results.second).toBe(results.first);
    expect(results.direct).toEqual([true, false]);
    expect(bodyOf((await on.messages.find('email', results.first))!)).toEqual({ sequence: 1 });
    expect(await on.messages.find('email', results.other)).toMatchObject({ status: 'pending' });
  });

  it('a run without a transaction is refused with ERR_IDEMPOTENCY_OUTBOX_TRANSACTION_MISSING; nothing is recorded', async () => {
    let effectKey = '';
    await expect(
      on.plainGuard.run(receipt(), (context) => {
        effectKey = context.effectKey('refund');
        return on.outbox.add(context, { name: 'refund', sender: 'http', payload: {} });
      }),
    ).rejects.toMatchObject({ code: 'ERR_IDEMPOTENCY_OUTBOX_TRANSACTION_MISSING' });
    expect(await on.messages.find('http', effectKey)).toBeNull();
  });
});

// The dispatcher's lease calls are the inbox's, whose contract every connection kind runs in
// inbox-store.test.ts: here it holds on the outbox as it is built (its own table, its receipts
// store, no group commit), on one of them, a table per case.
describe.each(driverKinds('outbox_contract').filter(([name]) => name === 'better-sqlite3 file'))(
  'SqlOutbox, the InboxStore contract (%s)',
  (name, open) => {
    let opened: OpenedKind;
    let tables = 0;
    beforeAll(async () => {
      opened = await open();
    });
    afterAll(() => opened.close());
    runInboxStoreConformance({
      name: `SqlOutbox (${name})`,
      makeInbox: async () => {
        const table = `outbox_${++tables}`;
        await OutboxSchema.createTable(opened.db, { table });
        return { inbox: new SqlOutbox(opened.db, { receipts: new SqlStore(opened.db), table }) };
      },
    });
  },
);

describe('SqlOutbox and enqueueIn, refused', () => {
  let db: Database.Database;
  let store: SqlStore<Database.Database>;
  let run = 0;
  beforeAll(async () => {
    db = new Database(':memory:');
    await Schema.createTable(db);
    await OutboxSchema.createTable(db);
    store = new SqlStore(db);
  });
  afterAll(() => db.close());
  const row = (externalId: string): NewDelivery => ({
    provider: 'http',
    externalId,
    orderingKey: null,
    headers: {},
    body: Buffer.from('{}'),
  });
  /** Runs `work` in a transactional run of `store`, resolving with what it threw (or undefined). */
  const refusalIn = async (
    work: (transaction: Database.Database) => Promise<unknown>,
  ): Promise<unknown> => {
    let refused: unknown;
    await new IdempotencyGuard(store, { transactional: true }).run(
      new RequestKey('stripe', `evt_refused_${++run}`),
      async ({ transaction }) => {
        refused = await work(transaction!).then(
          () => undefined,
          (error: unknown) => error,
        );
        return 'ok';
      },
    );
    return refused;
  };

  it('an outbox needs its receipts store, on its own connection', () => {
    // @ts-expect-error receipts is required
    expect(() => new SqlOutbox(db, {})).toThrow(
      expect.objectContaining({ name: 'ConfigError', option: 'receipts' }),
    );
    const other = new Database(':memory:');
    try {
      expect(() => new SqlOutbox(db, { receipts: new SqlStore(other) })).toThrow(
        expect.objectContaining({ name: 'ConfigError', option: 'receipts' }),
      );
    } finally {
      other.close();
    }
    expect(new SqlOutbox(db, { receipts: store }).receipts).toBe(store);
  });

  it('enqueueIn on an inbox built without receipts is refused naming receipts, and stores nothing', async () => {
    const alone = new SqlInbox(db, { table: 'webhook_outbox' });
    const work = (transaction: Database.Database) =>
      // @ts-expect-error built without receipts, its transaction type is never: the type says so too
      alone.enqueueIn(row('evt_alone'), transaction);
    expect(await refusalIn(work)).toMatchObject({
      name: 'ConfigError',
      option: 'receipts',
      message: expect.stringContaining('new SqlInbox(db, { receipts: store })'),
    });
    expect(await alone.find('http', 'evt_alone')).toBeNull();
  });

  it('enqueueIn refuses a missing transaction and a key part no database can store, before any statement', async () => {
    const messages = new SqlOutbox(db, { receipts: store });
    await expect(
      messages.enqueueIn(row('evt_no_tx'), undefined as unknown as Database.Database),
    ).rejects.toMatchObject({ code: 'ERR_IDEMPOTENCY_OUTBOX_TRANSACTION_MISSING' });
    expect(
      await refusalIn((transaction) => messages.enqueueIn(row('evt\u0000nul'), transaction)),
    ).toMatchObject({ name: 'InvalidRequestKey', field: 'externalId' });
    expect(await messages.find('http', 'evt_no_tx')).toBeNull();
  });
});

describe('OutboxSchema', () => {
  it("is the inbox's DDL on webhook_outbox, or the table given", () => {
    for (const dialect of ['postgres', 'mysql', 'sqlite'] as const) {
      expect(OutboxSchema.statements(dialect)).toEqual(
        InboxSchema.statements(dialect, { table: 'webhook_outbox' }),
      );
      expect(OutboxSchema.statements(dialect, { table: 'my_outbox' })).toEqual(
        InboxSchema.statements(dialect, { table: 'my_outbox' }),
      );
    }
    expect(OutboxSchema.statements('postgres')[0]).toMatch(
      /CREATE TABLE IF NOT EXISTS "webhook_outbox"/,
    );
  });

  it('refuses a bad table name and an unknown dialect, naming them', async () => {
    expect(() => OutboxSchema.statements('oracle' as never)).toThrow(
      expect.objectContaining({
        option: 'dialect',
        message: expect.stringContaining('OutboxSchema.statements'),
      }),
    );
    expect(() => OutboxSchema.statements('sqlite', { table: 'x; DROP' })).toThrow(
      expect.objectContaining({ option: 'table' }),
    );
    const db = new Database(':memory:');
    try {
      await expect(OutboxSchema.createTable(db, { table: 'x; DROP' })).rejects.toMatchObject({
        option: 'table',
      });
    } finally {
      db.close();
    }
  });
});
