/**
 * Effect keys: `effectKey(name)` on every run's context. The same on every retry, takeover and
 * worker of a delivery (a failed run retried, an inbox delivery retried and redelivered, a batch
 * item run again); different for another name, event, provider, tenant, batch item or namespace;
 * shaped for the APIs that take one; a bad name refused with a typed error. The stale takeover by
 * another guard on a SQL store is in packages/sql (its guard cases), the adapters' in the
 * conformance suite.
 */
import {
  ConfigError,
  ErrorCode,
  type HttpRequest,
  IdempotencyError,
  IdempotencyGuard,
  InMemoryStore,
  type KeyLike,
  type ProviderPreset,
  type RunContext,
} from '../src';
import { createEngine } from '../src/adapter';
import { createInboxWorker, InMemoryInbox } from '../src/inbox';

/** An RFC 9562 UUID of version 8, lowercase. */
const UUID_V8 = /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const stripe = (externalId: string) => ({ provider: 'stripe', externalId });
/** The key a handler of a guard under `namespace` gets for `key` and `name`, as `guard.effectKey` gives it. */
const effectKeyOf = (key: KeyLike, name: string, namespace?: string) =>
  new IdempotencyGuard(new InMemoryStore(), { effectKeyNamespace: namespace }).effectKey(key, name);

describe('guard.effectKey: the derivation', () => {
  it('is pinned: these keys never change across processes or versions (computed apart from the code)', () => {
    // Vectors computed outside this library from the documented derivation (SHA-256 of the
    // length-prefixed parts, its first 16 bytes as a version 8 UUID).
    expect(effectKeyOf(stripe('evt_1'), 'refund')).toBe('14abbdf9-b58f-8f26-bca1-45d1e4954304');
    expect(effectKeyOf(stripe('evt_1'), 'refund', 'billing')).toBe(
      '13c0fef4-daaf-87e6-a1cd-81fbb8fdb10b',
    );
    expect(effectKeyOf(stripe('acct_a:evt_1'), 'email:receipt')).toBe(
      'b80dfb60-d4c7-80c8-8842-e8ca70daa0a1',
    );
  });

  it('differs for another name, event, provider, tenant or namespace, and parts cannot run into each other', () => {
    const keys = [
      effectKeyOf(stripe('evt_1'), 'refund'),
      effectKeyOf(stripe('evt_1'), 'email:receipt'),
      effectKeyOf(stripe('evt_2'), 'refund'),
      effectKeyOf({ provider: 'paddle', externalId: 'evt_1' }, 'refund'),
      effectKeyOf(stripe('acct_a:evt_1'), 'refund'),
      effectKeyOf(stripe('acct_b:evt_1'), 'refund'),
      effectKeyOf(stripe('evt_1'), 'refund', 'billing'),
      effectKeyOf(stripe('evt_1'), 'refund', 'shipping'),
      // The same characters split differently between the parts.
      effectKeyOf({ provider: 'stripe:evt', externalId: '1' }, 'refund'),
      effectKeyOf({ provider: 'stripe', externalId: 'evt_1refund' }, 'x'),
    ];
    expect(new Set(keys).size).toBe(keys.length);
  });

  it("is 36 ASCII characters, URL- and header-safe, within every listed API's limit", () => {
    const names = ['refund', 'email:receipt', 'é ü 😀 / ? # & =', 'x'.repeat(200)];
    for (const name of names) {
      const key = effectKeyOf(stripe('😀'.repeat(160)), name, 'n'.repeat(200));
      expect(key).toMatch(UUID_V8);
      expect(key).toHaveLength(36);
      expect(encodeURIComponent(key)).toBe(key);
      expect(() => new Headers({ 'Idempotency-Key': key })).not.toThrow();
      // Razorpay payouts 36, Worldline 40, Square's RefundPayment 45, Plaid refunds 50, Adyen 64, Stripe 255.
      for (const limit of [36, 40, 45, 50, 64, 255]) expect(key.length).toBeLessThanOrEqual(limit);
    }
  });

  it('refuses a name that cannot make a key with ERR_IDEMPOTENCY_EFFECT_NAME_INVALID (500), naming the problem', () => {
    const bad: Array<[unknown, RegExp]> = [
      ['', /is empty/],
      ['x'.repeat(201), /is 201 characters long; the limit is 200/],
      [42, /must be a string, got number/],
      [undefined, /must be a string, got undefined/],
      [null, /must be a string, got null/],
      ['half \uD83D', /unpaired UTF-16 surrogate/],
    ];
    for (const [name, problem] of bad) {
      const thrown = (() => {
        try {
          effectKeyOf(stripe('evt_1'), name as string);
        } catch (error) {
          return error;
        }
        throw new Error(`accepted ${String(name)}`);
      })();
      expect(thrown).toBeInstanceOf(IdempotencyError);
      expect(thrown).toMatchObject({ code: ErrorCode.EFFECT_NAME_INVALID, httpStatus: 500 });
      expect((thrown as Error).message).toMatch(problem);
    }
  });

  it('refuses a bad namespace at construction with ConfigError naming effectKeyNamespace', () => {
    for (const namespace of ['', 'n'.repeat(201), 7, '\uDC00'])
      expect(
        () =>
          new IdempotencyGuard(new InMemoryStore(), { effectKeyNamespace: namespace as string }),
      ).toThrow(expect.objectContaining({ option: 'effectKeyNamespace' }));
    const guard = new IdempotencyGuard(new InMemoryStore());
    const store = new InMemoryStore();
    expect(() =>
      createEngine({ guard, provider: 'p', key: () => '1', effectKeyNamespace: 'a' }),
    ).toThrow(ConfigError);
    expect(() =>
      createInboxWorker({
        inbox: new InMemoryInbox(),
        guard,
        effectKeyNamespace: 'a',
        handlers: { p: () => 1 },
      }),
    ).toThrow(expect.objectContaining({ option: 'effectKeyNamespace' }));
    expect(() =>
      createEngine({ store, provider: 'p', key: () => '1', effectKeyNamespace: 'a' }),
    ).not.toThrow();
  });
});

describe('effectKey on a run', () => {
  it("is the same when a failed run is retried, and is the guard's namespace's", async () => {
    const guard = new IdempotencyGuard(new InMemoryStore(), { effectKeyNamespace: 'billing' });
    const seen: Array<[string, boolean]> = [];
    const refund = ({ effectKey, isRetry }: RunContext<unknown>) => {
      seen.push([effectKey('refund'), isRetry]);
      if (seen.length === 1) throw new Error('the refund call timed out');
      return 'refunded';
    };
    await expect(guard.run(stripe('evt_1'), refund)).rejects.toThrow('timed out');
    expect((await guard.run(stripe('evt_1'), refund)).response).toBe('refunded');
    const expected = effectKeyOf(stripe('evt_1'), 'refund', 'billing');
    expect(seen).toEqual([
      [expected, false],
      [expected, true],
    ]);
    // A bad name fails the run with the typed error, before anything went out; a retry runs again.
    const failed = guard.run(stripe('evt_2'), ({ effectKey }) => effectKey(''));
    await expect(failed).rejects.toMatchObject({ code: ErrorCode.EFFECT_NAME_INVALID });
    expect(await guard.find(stripe('evt_2'))).toMatchObject({ status: 'failed' });
  });

  it('a batch gives each item its own key (its id), the same when a redelivery runs a failed item again', async () => {
    const preset: ProviderPreset = {
      provider: 'batchy',
      keyDescription: 'id of each event',
      needsRawBody: true,
      retentionDays: 3,
      key: () => undefined,
      items: (request) =>
        (JSON.parse(request.rawBody!.toString()) as Array<{ id: string }>).map((event) => ({
          key: event.id,
          value: event,
        })),
    };
    const engine = createEngine({ store: new InMemoryStore(), preset });
    const seen: string[] = [];
    let fail = true;
    const deliver = async (ids: readonly string[]) => {
      const request = {
        method: 'POST',
        url: '/hook',
        headers: {},
        rawBody: Buffer.from(JSON.stringify(ids.map((id) => ({ id })))),
        body: undefined,
        native: {},
      } as HttpRequest;
      const decision = await engine.begin(request);
      if (decision.action !== 'run') throw new Error(`expected a run, got ${decision.action}`);
      const { run, idempotency } = decision;
      seen.push(`batch ${idempotency.effectKey('refund')}`);
      try {
        await idempotency.batch!.each<{ id: string }>((event, { effectKey }) => {
          seen.push(`${event.id} ${effectKey('refund')}`);
          if (event.id === 'b' && fail) throw new Error('the refund call timed out');
        });
        await run.finish({ status: 200, headers: {}, body: Buffer.from('ok') });
      } catch (error) {
        await run.abort(error);
      }
    };
    await deliver(['a', 'b']);
    fail = false;
    await deliver(['a', 'b']);
    const key = (id: string) => effectKeyOf({ provider: 'batchy', externalId: id }, 'refund');
    const batch = seen[0]!;
    expect(batch).toMatch(/^batch /);
    // The redelivery runs only the failed item, under the same keys; the batch's own differs.
    expect(seen).toEqual([batch, `a ${key('a')}`, `b ${key('b')}`, batch, `b ${key('b')}`]);
    expect(new Set([batch.slice(6), key('a'), key('b')]).size).toBe(3);
  });

  it('an inbox delivery keeps its key across a retry and an operator redelivery, the key its HTTP run would have', async () => {
    let time = Date.UTC(2026, 0, 1);
    const inbox = new InMemoryInbox({ now: () => time });
    const seen: string[] = [];
    const worker = createInboxWorker({
      inbox,
      store: new InMemoryStore(),
      effectKeyNamespace: 'billing',
      maxFailures: 2,
      backoffBaseMs: 1000,
      random: () => 0,
      handlers: {
        stripe: (_delivery, { effectKey }) => {
          seen.push(effectKey('refund'));
          throw new Error('the refund call timed out');
        },
      },
    });
    await inbox.enqueue({
      ...stripe('evt_9'),
      orderingKey: null,
      headers: {},
      body: Buffer.from('{}'),
    });
    expect(await worker.runOnce()).toBe(1);
    time += 60_000; // past the backoff: the worker retries, then buries it at maxFailures
    expect(await worker.runOnce()).toBe(1);
    const dead = await inbox.find('stripe', 'evt_9');
    expect(dead).toMatchObject({ status: 'dead' });
    expect(await inbox.redeliver('stripe', 'evt_9', dead as never)).toBe(true);
    expect(await worker.runOnce()).toBe(1);
    expect(seen).toEqual(Array(3).fill(effectKeyOf(stripe('evt_9'), 'refund', 'billing')));
  });
});
