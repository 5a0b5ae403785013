/**
 * Regression: an inbox ordering key with a NUL reached PostgreSQL, whose text columns refuse it;
 * the endpoint turned the driver's error into a store failure, so the provider was told 503 "The
 * receipts store is unavailable" for that delivery on every retry, forever. The ordering key is now
 * checked as the key itself is (400 `KEY_INVALID` naming `orderingKey`, nothing stored), SqlInbox
 * refuses such a key before any SQL, and a real inbox store failure names the inbox store.
 * On PostgreSQL, MariaDB and a SQLite file.
 */
import {
  createInboxEngine,
  type InboxDecision,
  type InboxEngine,
} from '@webhook-idempotency/core/adapter';
import { InvalidRequestKey } from '@webhook-idempotency/core';
import { InboxSchema, SqlInbox } from '../../src';
import { connectionKinds, type OpenedKind } from '../helpers/kinds';

const kinds = connectionKinds('inbox_keys').filter(([name]) =>
  ['pg Pool', 'mysql2 promise pool, MariaDB', 'better-sqlite3 file'].includes(name),
);

/** A POST whose ordering key is the `x-order` header, keyed by `x-id`. */
const post = (id: string, order: string) => ({
  method: 'POST',
  url: '/webhooks/orders',
  headers: { 'content-type': 'application/json', 'x-id': id, 'x-order': order },
  rawBody: Buffer.from(`{"id":"${id}"}`),
  body: undefined,
  native: { id, order },
});

type Native = { id: string; order: string };

const answer = (decision: InboxDecision): { status: number; code?: string; message?: string } => {
  if (decision.action !== 'respond') throw new Error('the request was handed on');
  return {
    status: decision.response.status,
    ...(JSON.parse(decision.response.body.toString('utf8')) as { code?: string; message?: string }),
  };
};

describe.each(kinds)('inbox keys from the request (%s)', (_name, open) => {
  let opened: OpenedKind;
  let inbox: SqlInbox;
  let engine: InboxEngine<Native>;

  beforeAll(async () => {
    opened = await open();
    await InboxSchema.createTable(opened.db, { table: 'inbox_keys' });
    inbox = new SqlInbox(opened.db, { table: 'inbox_keys' });
    engine = createInboxEngine<Native>({
      inbox,
      provider: 'orders',
      key: (native) => native.id,
      verify: () => true,
      orderingKey: (native) => native.order,
    });
  });
  afterAll(() => opened.close());

  it.each([
    ['a NUL', 'cus\u0000x', /NUL/],
    ['an unpaired surrogate', 'cus\ud800', /surrogate/],
    ['161 characters', 'o'.repeat(161), /161 characters/],
  ])(
    'an ordering key with %s is 400 KEY_INVALID naming orderingKey, and nothing is stored',
    async (_what, order, problem) => {
      const id = `evt_${order.length}_${order.charCodeAt(3)}`;
      const got = answer(await engine.accept(post(id, order)));
      expect(got).toMatchObject({ status: 400, code: 'ERR_IDEMPOTENCY_KEY_INVALID' });
      expect(got.message).toMatch(/orderingKey/);
      expect(got.message).toMatch(problem);
      expect(await inbox.find('orders', id)).toBeNull();
      // The same delivery with a storable key is stored: nothing was pinned or wedged.
      expect(answer(await engine.accept(post(id, 'cus_1'))).status).toBe(200);
      expect((await inbox.find('orders', id))?.orderingKey).toBe('cus_1');
    },
  );

  it('SqlInbox.enqueue refuses an unstorable key part with InvalidRequestKey before any SQL', async () => {
    const delivery = {
      provider: 'orders',
      externalId: 'evt_direct',
      orderingKey: 'a\u0000b',
      headers: {},
      body: Buffer.from('{}'),
    };
    await expect(inbox.enqueue(delivery)).rejects.toMatchObject({
      name: 'InvalidRequestKey',
      field: 'orderingKey',
    });
    await expect(
      inbox.enqueue({ ...delivery, externalId: 'e\u0000', orderingKey: null }),
    ).rejects.toBeInstanceOf(InvalidRequestKey);
    expect(await inbox.find('orders', 'evt_direct')).toBeNull();
  });

  it('a failing inbox store is 503 "The inbox store is unavailable", never the receipts store', async () => {
    const broken = new SqlInbox(opened.db, { table: 'no_such_inbox_table' });
    const down = createInboxEngine<Native>({
      inbox: broken,
      provider: 'orders',
      key: (native) => native.id,
      verify: () => true,
    });
    const got = answer(await down.accept(post('evt_down', 'cus_1')));
    expect(got).toMatchObject({
      status: 503,
      code: 'ERR_IDEMPOTENCY_STORE',
      message: 'The inbox store is unavailable; retry later',
    });
  });
});
