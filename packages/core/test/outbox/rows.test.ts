/**
 * An outbox row read back as its message: what `Outbox.add` wrote (sender, effect key, name,
 * receipt), and a row without those headers read with nulls instead of a throw.
 */
import { IdempotencyGuard, InMemoryStore } from '../../src';
import type { NewDelivery } from '../../src/inbox';
import { Outbox, OutboxHeader, outboxRowOf } from '../../src/outbox';

it('reads what Outbox.add recorded: sender, the effect key, the name and the receipt', async () => {
  const rows: NewDelivery[] = [];
  // A record store that keeps what it is given, inside the run's transaction.
  const outbox = new Outbox<unknown>({
    store: {
      enqueueIn: async (delivery) => {
        rows.push(delivery);
        return true;
      },
    },
  });
  const guard = new IdempotencyGuard(new InMemoryStore());
  let key = '';
  await guard.run({ provider: 'stripe', externalId: 'evt_1' }, async (context) => {
    key = await outbox.add(
      { ...context, transaction: {} },
      {
        name: 'refund',
        sender: 'http',
        payload: { url: 'https://example.test/refunds' },
      },
    );
  });
  expect(rows).toHaveLength(1);
  expect(outboxRowOf(rows[0]!)).toEqual({
    sender: 'http',
    key,
    name: 'refund',
    receipt: { provider: 'stripe', externalId: 'evt_1' },
  });
  expect(Object.keys(rows[0]!.headers).sort()).toEqual(Object.values(OutboxHeader).sort());
});

it('reads a row without the headers with a null name and receipt', () => {
  expect(
    outboxRowOf({
      provider: 'email',
      externalId: 'k-1',
      headers: { [OutboxHeader.RECEIPT_PROVIDER]: 'stripe', 'effect-name': 'welcome' },
    }),
  ).toEqual({ sender: 'email', key: 'k-1', name: 'welcome', receipt: null });
  // Inherited names are not headers.
  expect(outboxRowOf({ provider: 'email', externalId: 'k-2', headers: {} })).toEqual({
    sender: 'email',
    key: 'k-2',
    name: null,
    receipt: null,
  });
});
