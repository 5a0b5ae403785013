/**
 * SqlInbox (issue 12): the InboxStore contract on every kind of connection it accepts, by the
 * inbox-store conformance suite (stored once, the exact bytes, leases that never overlap, fenced
 * settling, retries and dead letters, ordering groups, the relay's reads, listings, purge), then
 * what is SqlInbox's own: claims without SKIP LOCKED, its table, its options and DDL. No dialect
 * is named below.
 */
import type { NewDelivery } from '@webhook-idempotency/core/inbox';
import { runInboxStoreConformance } from '@webhook-idempotency/core/testing';
import type { ConfigError } from '@webhook-idempotency/core';
import { InboxSchema, SqlInbox } from '../src';
import { connectionKinds, type OpenedKind } from './helpers/kinds';

const LEASE = 60_000;

describe.each(connectionKinds('inbox'))('SqlInbox (%s)', (name, open) => {
  let opened: OpenedKind;
  let table = 0;
  // A table per test: each starts empty, whatever the one before left.
  const freshTable = async () => {
    const created = `inbox_${++table}`;
    await InboxSchema.createTable(opened.db, { table: created });
    return created;
  };
  const delivery = (externalId: string): NewDelivery => ({
    provider: 'stripe',
    externalId,
    orderingKey: null,
    headers: { 'content-type': 'application/json' },
    body: Buffer.from(`{"id":"${externalId}"}`),
  });

  beforeAll(async () => {
    opened = await open();
  });
  afterAll(() => opened.close());

  runInboxStoreConformance({
    name: `SqlInbox (${name})`,
    makeInbox: async () => ({ inbox: new SqlInbox(opened.db, { table: await freshTable() }) }),
  });

  it('with skipLocked: false (servers without SKIP LOCKED), concurrent lease calls wait instead and still lease each once', async () => {
    const waiting = new SqlInbox(opened.db, { table: await freshTable(), skipLocked: false });
    for (let i = 0; i < 12; i++) await waiting.enqueue(delivery(`evt_${i}`));
    const batches = await Promise.all(
      Array.from({ length: 6 }, () =>
        waiting.lease({ providers: ['stripe'], limit: 3, leaseMs: LEASE }),
      ),
    );
    const ids = batches.flat().map((d) => d.externalId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBe(12);
  });

  it('claim and claimRefs, the deprecated names of lease and leaseRefs, still lease', async () => {
    const inbox = new SqlInbox(opened.db, { table: await freshTable() });
    for (const id of ['evt_1', 'evt_2']) await inbox.enqueue(delivery(id));
    const input = { providers: ['stripe'], limit: 1, leaseMs: LEASE };
    expect(await inbox.claim(input)).toMatchObject([{ externalId: 'evt_1', leases: 1 }]);
    expect(await inbox.claimRefs(input)).toMatchObject([{ externalId: 'evt_2', leases: 1 }]);
    expect(await inbox.lease(input)).toEqual([]);
  });

  it('tells whether its table exists', async () => {
    const inbox = new SqlInbox(opened.db, { table: await freshTable() });
    expect(await inbox.tableExists()).toBe(true);
    expect(await new SqlInbox(opened.db, { table: 'inbox_missing' }).tableExists()).toBe(false);
  });
});

describe('SqlInbox options', () => {
  it('refuses a bad table name and options, naming them', () => {
    const db = { prepare() {}, pragma() {}, exec() {} };
    expect(() => new SqlInbox(db as never, { table: 'x; DROP' })).toThrow(
      expect.objectContaining({ option: 'table' }),
    );
    expect(() => new SqlInbox(db as never, { skipLocked: 'yes' as never })).toThrow(
      expect.objectContaining({ option: 'skipLocked' }),
    );
    expect(() => new SqlInbox(db as never, { acquireTimeoutMs: 0 })).toThrow(
      expect.objectContaining({ option: 'acquireTimeoutMs' }),
    );
    expect(() => new SqlInbox({} as never)).toThrow(
      expect.objectContaining({ name: 'ConfigError', option: 'db' }),
    );
  });

  it('leaseTimeoutMs, and its deprecated name claimTimeoutMs, are checked under the name given; the two disagreeing are refused naming both', () => {
    const db = { prepare() {}, pragma() {}, exec() {} };
    const refused = (options: object) => {
      try {
        new SqlInbox(db as never, options);
        return undefined;
      } catch (error) {
        return { option: (error as ConfigError).option, message: (error as Error).message };
      }
    };
    expect(refused({ leaseTimeoutMs: 0 })).toMatchObject({ option: 'leaseTimeoutMs' });
    expect(refused({ claimTimeoutMs: 0 })).toMatchObject({ option: 'claimTimeoutMs' });
    expect(refused({ claimTimeoutMs: 500 })).toBeUndefined();
    expect(refused({ leaseTimeoutMs: 500, claimTimeoutMs: 500 })).toBeUndefined();
    expect(refused({ leaseTimeoutMs: 500, claimTimeoutMs: 900 })).toMatchObject({
      option: 'leaseTimeoutMs',
      message: expect.stringContaining('claimTimeoutMs'),
    });
  });

  it('the DDL of every dialect names the table and both keys', () => {
    for (const dialect of ['postgres', 'mysql', 'sqlite'] as const) {
      const [create] = InboxSchema.statements(dialect, { table: 'my_inbox' });
      expect(create).toMatch(/CREATE TABLE IF NOT EXISTS .my_inbox./);
      expect(create).toMatch(/UNIQUE \(provider, external_id\)/);
      expect(create).toMatch(/PRIMARY KEY/);
    }
    expect(() => InboxSchema.statements('oracle' as never)).toThrow(
      expect.objectContaining({ name: 'ConfigError', option: 'dialect' }),
    );
  });
});
