/**
 * `Outbox.add`: the row a message becomes (the sender's name, the effect key, the receipt and the
 * effect's name in its headers, the payload's JSON), inserted through the store in the run's own
 * transaction; a name recorded twice is one row; a run without a transaction, a bad sender name, a
 * payload that cannot be stored are refused with typed errors and insert nothing; its options are
 * checked by name.
 */
import { ConfigError, ErrorCode, IdempotencyError } from '../../src';
import { InMemoryInbox } from '../../src/inbox';
import { DEFAULT_MAX_PAYLOAD_BYTES, Outbox } from '../../src/outbox';
import { keyOf, outboxInto, runContext } from './support';

let inbox: InMemoryInbox;
let outbox: ReturnType<typeof outboxInto>;

beforeEach(() => {
  inbox = new InMemoryInbox();
  outbox = outboxInto(inbox);
});

/** The code `work` rejected with (fails the test if it resolved or threw something else). */
async function codeOf(work: Promise<unknown>): Promise<string> {
  try {
    await work;
  } catch (error) {
    expect(error).toBeInstanceOf(IdempotencyError);
    return (error as IdempotencyError).code;
  }
  throw new Error('expected a rejection');
}

it('records a message as one row in the run’s transaction and resolves with its effect key', async () => {
  const context = runContext('evt_1');
  const key = await outbox.outbox.add(context, {
    name: 'refund',
    sender: 'http',
    payload: { url: 'https://api.example/refunds', json: { amount: 500, note: 'café' } },
  });
  expect(key).toBe(keyOf('evt_1', 'refund'));
  expect(outbox.inserts).toHaveLength(1);
  const [{ delivery, transaction }] = outbox.inserts as [(typeof outbox.inserts)[0]];
  expect(transaction).toBe(context.transaction);
  expect(delivery).toEqual({
    provider: 'http',
    externalId: key,
    orderingKey: null,
    headers: { 'receipt-provider': 'stripe', 'receipt-id': 'evt_1', 'effect-name': 'refund' },
    body: Buffer.from(
      '{"url":"https://api.example/refunds","json":{"amount":500,"note":"café"}}',
      'utf8',
    ),
  });
  expect(await inbox.find('http', key)).toMatchObject({ status: 'pending', failures: 0 });
});

it('a name recorded twice under one receipt is one row and one key; another name or receipt is another', async () => {
  const message = { name: 'refund', sender: 'http', payload: { n: 1 } };
  const first = await outbox.record('evt_1', message);
  expect(await outbox.record('evt_1', { ...message, payload: { n: 2 } })).toBe(first);
  const other = await outbox.record('evt_1', { ...message, name: 'payout' });
  const elsewhere = await outbox.record('evt_2', message);
  expect(new Set([first, other, elsewhere]).size).toBe(3);
  expect((await inbox.list()).map((row) => row.externalId)).toEqual([first, other, elsewhere]);
  // The first record stays as it was.
  expect((await inbox.find('http', first))!.body.toString()).toBe('{"n":1}');
});

it('a run without a transaction is refused, nothing recorded', async () => {
  for (const transaction of [undefined, null])
    expect(
      await codeOf(
        outbox.outbox.add(
          { ...runContext('evt_1'), transaction: transaction as never },
          {
            name: 'refund',
            sender: 'http',
            payload: {},
          },
        ),
      ),
    ).toBe(ErrorCode.OUTBOX_TRANSACTION_MISSING);
  expect(outbox.inserts).toEqual([]);
});

it.each<[string, unknown]>([
  ['empty', ''],
  ['with a space', 'my sender'],
  ['starting with a dash', '-http'],
  ['longer than 64', 'h'.repeat(65)],
  ['not a string', 5],
])('a sender name %s is refused, nothing recorded', async (_case, sender) => {
  const add = outbox.record('evt_1', { name: 'refund', sender: sender as string, payload: {} });
  expect(await codeOf(add)).toBe(ErrorCode.OUTBOX_MESSAGE_INVALID);
  expect(outbox.inserts).toEqual([]);
});

it('a sender name of 64 characters, with dots, colons, dashes and underscores, is taken', async () => {
  const sender = `a.b:c-d_${'e'.repeat(56)}`;
  expect(sender).toHaveLength(64);
  await outbox.record('evt_1', { name: 'refund', sender, payload: {} });
  expect(outbox.inserts.map((i) => i.delivery.provider)).toEqual([sender]);
});

it('a message that is no object is refused', async () => {
  expect(await codeOf(outbox.outbox.add(runContext('evt_1'), null as never))).toBe(
    ErrorCode.OUTBOX_MESSAGE_INVALID,
  );
});

it('an effect name that cannot make a key is refused by the run’s effectKey', async () => {
  const add = outbox.record('evt_1', { name: '', sender: 'http', payload: {} });
  expect(await codeOf(add)).toBe(ErrorCode.EFFECT_NAME_INVALID);
  expect(outbox.inserts).toEqual([]);
});

describe('a payload that cannot be stored is refused, nothing recorded', () => {
  const circular: Record<string, unknown> = {};
  circular.self = circular;
  it.each<[string, unknown, RegExp]>([
    ['circular', circular, /the payload of "refund" is not JSON-serialisable: .*circular/i],
    ['a BigInt', { amount: 10n }, /the payload of "refund" is not JSON-serialisable: .*BigInt/i],
    ['undefined', undefined, /the payload of "refund" is not JSON-serialisable/],
    ['a function', () => 1, /the payload of "refund" is not JSON-serialisable/],
  ])('%s', async (_case, payload, problem) => {
    const add = outbox.record('evt_1', { name: 'refund', sender: 'http', payload });
    await expect(add).rejects.toMatchObject({
      code: ErrorCode.OUTBOX_MESSAGE_INVALID,
      message: expect.stringMatching(problem),
    });
    expect(outbox.inserts).toEqual([]);
  });

  it('larger than maxPayloadBytes, counted in UTF-8 bytes of its JSON', async () => {
    const small = new Outbox({
      store: { enqueueIn: (d) => inbox.enqueue(d) },
      maxPayloadBytes: 10,
    });
    // "€€€€" is 14 bytes of JSON (3 per €, and its quotes), 6 characters.
    await expect(
      small.add(runContext('evt_1'), { name: 'refund', sender: 'http', payload: '€€€€' }),
    ).rejects.toMatchObject({
      code: ErrorCode.OUTBOX_MESSAGE_INVALID,
      message: expect.stringContaining(
        'the payload of "refund" is 14 bytes of JSON; the limit is 10 (maxPayloadBytes)',
      ),
    });
    // Exactly the limit: taken.
    await small.add(runContext('evt_1'), { name: 'fits', sender: 'http', payload: '€€' + 'ab' });
    expect(await inbox.list()).toHaveLength(1);
  });
});

it('refuses invalid options with a ConfigError naming each', () => {
  const store = { enqueueIn: async () => true };
  const named = (build: () => unknown) => {
    try {
      build();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return (error as ConfigError).option;
    }
    throw new Error('expected a ConfigError');
  };
  expect(named(() => new Outbox(undefined as never))).toBe('store');
  expect(named(() => new Outbox({ store: inbox as never }))).toBe('store');
  for (const maxPayloadBytes of [0, -1, 1.5, 16 * 1024 * 1024 + 1, '5', Number.NaN])
    expect(named(() => new Outbox({ store, maxPayloadBytes: maxPayloadBytes as number }))).toBe(
      'maxPayloadBytes',
    );
  expect(new Outbox({ store }).maxPayloadBytes).toBe(DEFAULT_MAX_PAYLOAD_BYTES);
  expect(DEFAULT_MAX_PAYLOAD_BYTES).toBe(262_144);
  expect(new Outbox({ store, maxPayloadBytes: 16 * 1024 * 1024 }).maxPayloadBytes).toBe(
    16 * 1024 * 1024,
  );
});
