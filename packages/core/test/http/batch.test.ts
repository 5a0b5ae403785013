/**
 * The engine with a batched preset, without any framework (the adapter's part played by hand):
 * the request keyed by a digest of its item ids, each item run under its own receipt by
 * `batch.each`, and the answers a batch gets when an item is held, refused or fails.
 */
import {
  FingerprintMismatch,
  type HttpRequest,
  IdempotencyGuard,
  InMemoryStore,
  type ProviderPreset,
  type RequestIdempotency,
  RequestKey,
} from '../../src';
import { createEngine, type Decision, type PendingRun } from '../../src/adapter';

interface Event {
  readonly id?: string;
  readonly n?: number;
  readonly attempt?: number;
}

/** A preset whose body is a JSON array of events keyed by `id`; `attempt` is bookkeeping. */
const preset = (overrides: Partial<ProviderPreset> = {}): ProviderPreset => ({
  provider: 'batchy',
  keyDescription: 'id of each event',
  needsRawBody: true,
  retentionDays: 3,
  key: () => undefined,
  verify: (request) => request.headers['x-sig'] === 'good',
  items(request) {
    const events = JSON.parse(request.rawBody!.toString()) as unknown;
    if (!Array.isArray(events)) return undefined;
    return events.map((event: Event) => {
      const { attempt, ...rest } = event;
      return { key: event.id, value: event, fingerprint: JSON.stringify(rest) };
    });
  },
  ...overrides,
});

const post = (events: unknown, headers: Record<string, string> = { 'x-sig': 'good' }) =>
  ({
    method: 'POST',
    url: '/hook',
    headers,
    rawBody: Buffer.from(JSON.stringify(events)),
    body: undefined,
    native: {},
  }) as HttpRequest;

const ok = (text = '[accepted]') => ({
  status: 200,
  headers: { 'content-type': 'text/plain' },
  body: Buffer.from(text),
});

/** An in-memory store that notes the ids it is asked to claim, and fails the calls a test breaks on purpose. */
class FaultyStore extends InMemoryStore {
  readonly claimed: string[] = [];
  /** Claims of this id fail, as on a lost connection. */
  failClaimsOf: string | undefined;
  /** Completions of a batch's own receipt fail. */
  failBatchCompletion = false;

  override claim(...args: Parameters<InMemoryStore['claim']>) {
    const { externalId } = RequestKey.from(args[0]);
    this.claimed.push(externalId);
    if (externalId === this.failClaimsOf) return Promise.reject(new Error('connection reset'));
    return super.claim(...args);
  }

  override complete(...args: Parameters<InMemoryStore['complete']>) {
    if (this.failBatchCompletion && RequestKey.from(args[0]).externalId.startsWith('batch:'))
      return Promise.reject(new Error('connection reset'));
    return super.complete(...args);
  }
}

function setup(p: ProviderPreset = preset()) {
  const store = new FaultyStore();
  const guard = new IdempotencyGuard(store);
  const engine = createEngine({ guard, preset: p });
  const booked: string[] = [];
  const find = (id: string) => guard.find({ provider: 'batchy', externalId: id });
  return { store, guard, engine, booked, find };
}

function running(decision: Decision): { run: PendingRun; idempotency: RequestIdempotency } {
  if (decision.action !== 'run') throw new Error(`expected run, got ${decision.action}`);
  return decision;
}

/** What an adapter does: the handler books each item; its error goes to `abort`, its answer to `finish`. */
async function deliver(
  engine: ReturnType<typeof setup>['engine'],
  request: HttpRequest,
  item: (event: Event) => unknown,
  look?: (batch: NonNullable<RequestIdempotency['batch']>) => void,
): Promise<{ status: number; text: string; replayed?: boolean; error?: unknown }> {
  const decision = await engine.begin(request);
  if (decision.action === 'respond')
    return {
      status: decision.response.status,
      text: decision.response.body.toString(),
      replayed: decision.replayed,
    };
  const { run, idempotency } = running(decision);
  look?.(idempotency.batch!);
  try {
    await idempotency.batch!.each<Event>(async (event) => item(event));
  } catch (error) {
    const answer = await run.abort(error);
    // The framework's own error handling would answer 500.
    return answer
      ? { status: answer.status, text: answer.body.toString() }
      : { status: 500, text: 'framework', error };
  }
  const replacement = await run.finish(ok());
  return replacement
    ? { status: replacement.status, text: replacement.body.toString() }
    : { status: 200, text: '[accepted]' };
}

describe('a batched preset through the engine', () => {
  it('books each item once; an identical or reordered retry is replayed from the batch receipt; a re-batch runs only the new item', async () => {
    const { engine, booked, find } = setup();
    const book = (event: Event) => booked.push(event.id!);
    expect(await deliver(engine, post([{ id: 'a' }, { id: 'b' }, { id: 'c' }]), book)).toEqual({
      status: 200,
      text: '[accepted]',
    });
    expect(booked).toEqual(['a', 'b', 'c']);
    for (const id of ['a', 'b', 'c'])
      expect(await find(id)).toMatchObject({ status: 'completed', attempts: 1 });

    const again = await deliver(engine, post([{ id: 'c' }, { id: 'a' }, { id: 'b' }]), book);
    expect(again).toMatchObject({ status: 200, text: '[accepted]', replayed: true });

    // HubSpot-style bookkeeping that changes on a retry is outside the item's fingerprint.
    const rebatched = [{ id: 'b', attempt: 2 }, { id: 'c' }, { id: 'd' }];
    expect(await deliver(engine, post(rebatched), book)).toEqual({
      status: 200,
      text: '[accepted]',
    });
    expect(booked).toEqual(['a', 'b', 'c', 'd']);
  });

  it('hands the handler the items, a context per item and the batch receipt keyed by a digest of the ids', async () => {
    const { engine } = setup();
    const { idempotency, run } = running(await engine.begin(post([{ id: 'x', n: 1 }])));
    expect(idempotency.key.externalId).toMatch(/^batch:[0-9a-f]{64}$/);
    expect(idempotency.transaction).toBeUndefined();
    expect(idempotency.batch!.items.map((item) => [item.key.externalId, item.value])).toEqual([
      ['x', { id: 'x', n: 1 }],
    ]);
    const contexts: unknown[] = [];
    const outcomes = await idempotency.batch!.each((_event, context) => {
      contexts.push([context.key.externalId, context.attempts, context.isRetry]);
      return { booked: true };
    });
    expect(contexts).toEqual([['x', 1, false]]);
    expect(outcomes).toEqual([{ response: { booked: true }, isReplay: false, attempts: 1 }]);
    expect(await run.finish(ok())).toBeNull();
  });

  it('a forged batch is 401 with no receipt at all; a batch with no valid id at all is 400 with none either', async () => {
    const { engine, store } = setup();
    const forged = await deliver(engine, post([{ id: 'f1' }], { 'x-sig': 'bad' }), () => 0);
    expect(forged.status).toBe(401);
    const keyless = await deliver(engine, post([{ n: 1 }, { id: '' }]), () => 0);
    expect(keyless.status).toBe(400);
    expect(keyless.text).toMatch(/Item 0 of the request carries no id of each event/);
    expect((await deliver(engine, post([]), () => 0)).status).toBe(400);
    expect(await store.find({ provider: 'batchy', externalId: 'f1' }, { now: 0 })).toBeNull();
  });

  it('an item without a valid id is refused alone: the others run once, the batch answers 400 naming it, every redelivery the same', async () => {
    const { engine, booked, find } = setup();
    const batch = [{ id: 'k1' }, { n: 1 }, { id: 'x'.repeat(5000) }, { id: 'k2' }];
    const alone = await deliver(engine, post([{ id: 'k0' }, { n: 2 }]), () => 0);
    expect(alone.text).toMatch(/item batchy\/item:1 was sent without an id/);
    for (let round = 0; round < 3; round++) {
      const answer = await deliver(engine, post(batch), (event: Event) => {
        booked.push(event.id!);
      });
      expect(answer.status).toBe(400);
      expect(answer.text).toMatch(
        /items batchy\/item:1, batchy\/item:2 were refused \(ERR_IDEMPOTENCY_KEY_MISSING, ERR_IDEMPOTENCY_KEY_INVALID\): not run, and a redelivery is refused the same way/,
      );
    }
    expect(booked).toEqual(['k1', 'k2']);
    expect(await find('k1')).toMatchObject({ status: 'completed' });
    expect(await find('k2')).toMatchObject({ status: 'completed' });
  });

  it('a batch re-sent with an item without an id added is another batch: the new item is answered 400, the done one replayed', async () => {
    const { engine, booked } = setup();
    const book = (event: Event) => void booked.push(event.id ?? '?');
    expect((await deliver(engine, post([{ id: 'a1' }]), book)).status).toBe(200);
    const seen: Array<[string, string | undefined]> = [];
    const again = await deliver(engine, post([{ id: 'a1' }, { n: 7 }]), book, (batch) =>
      batch.items.forEach((item) => void seen.push([item.key.externalId, item.refused?.code])),
    );
    expect(again.status).toBe(400);
    expect(booked).toEqual(['a1']);
    expect(seen).toEqual([
      ['a1', undefined],
      ['item:1', 'ERR_IDEMPOTENCY_KEY_MISSING'],
    ]);
  });

  it('a request the preset does not read as a batch goes on as a single delivery by key', async () => {
    const { engine } = setup();
    const single = await deliver(engine, post({ id: 'not-an-array' }), () => 0);
    expect(single.status).toBe(400);
  });

  it('an item that throws fails the batch after the items before it were recorded; the retry runs only what is not done', async () => {
    const { engine, booked, find } = setup();
    let failing = true;
    const book = (event: Event) => {
      if (event.id === 'e2' && failing) throw new Error('ledger down');
      booked.push(event.id!);
    };
    const batch = [{ id: 'e1' }, { id: 'e2' }, { id: 'e3' }];
    const first = await deliver(engine, post(batch), book);
    expect(first).toMatchObject({ status: 500, text: 'framework' });
    expect((first.error as Error).message).toBe('ledger down');
    expect(await find('e1')).toMatchObject({ status: 'completed' });
    expect(await find('e2')).toMatchObject({ status: 'failed', error: 'Error: ledger down' });
    expect(await find('e3')).toBeNull();

    failing = false;
    expect((await deliver(engine, post(batch), book)).status).toBe(200);
    expect(booked).toEqual(['e1', 'e2', 'e3']);
    expect(await find('e2')).toMatchObject({ status: 'completed', attempts: 2 });
  });

  it('an item another worker holds makes the batch answer 409 with Retry-After, whatever the handler answers', async () => {
    const { engine, guard, booked } = setup();
    const held = await guard.claim({ provider: 'batchy', externalId: 'h2' });
    const book = (event: Event) => booked.push(event.id!);
    const batch = [{ id: 'h1' }, { id: 'h2' }, { id: 'h3' }];
    const answered = await deliver(engine, post(batch), book);
    expect(answered.status).toBe(409);
    expect(JSON.parse(answered.text)).toMatchObject({ code: 'ERR_IDEMPOTENCY_IN_PROGRESS' });
    expect(booked).toEqual(['h1']);

    // A handler that catches the error and answers 2xx is answered 409 all the same.
    const { run, idempotency } = running(await engine.begin(post(batch)));
    await idempotency.batch!.each(book).catch(() => undefined);
    const replaced = await run.finish(ok());
    expect(replaced?.status).toBe(409);
    expect(replaced?.headers['retry-after']).toBeDefined();

    if (held.isReplay) throw new Error('expected a ticket');
    await held.complete({ booked: 'elsewhere' });
    expect((await deliver(engine, post(batch), book)).status).toBe(200);
    expect(booked).toEqual(['h1', 'h3']);
  });

  it('the same id with another body is refused alone: the items after it run, each resolves with the refusal in its place, the batch answers 422 at the end', async () => {
    const { engine, guard, booked, find } = setup();
    const book = (event: Event) => booked.push(event.id!);
    await deliver(engine, post([{ id: 'm1', n: 1 }]), book);
    const request = post([{ id: 'm0' }, { id: 'm1', n: 2 }, { id: 'm2' }]);
    const { run, idempotency } = running(await engine.begin(request));
    const outcomes = await idempotency.batch!.each<Event>(book);
    expect(booked).toEqual(['m1', 'm0', 'm2']);
    expect(outcomes).toHaveLength(3);
    expect(outcomes[0]).toMatchObject({ isReplay: false, attempts: 1 });
    expect(outcomes[1]!.refused).toBeInstanceOf(FingerprintMismatch);
    expect(outcomes[2]).toMatchObject({ isReplay: false, attempts: 1 });

    // The handler's 2xx is replaced by the refusal, and the batch's receipt names the item.
    const answer = await run.finish(ok());
    expect(answer?.status).toBe(422);
    const body = JSON.parse(answer!.body.toString()) as { code: string; message: string };
    expect(body.code).toBe('ERR_IDEMPOTENCY_FINGERPRINT_MISMATCH');
    expect(body.message).toContain(
      "The batch's item batchy/m1 was first received with another payload",
    );
    const own = await guard.find(idempotency.key);
    expect(own).toMatchObject({ status: 'failed' });
    expect(own?.error).toContain('batchy/m1');
    expect(await find('m1')).toMatchObject({ status: 'completed', attempts: 1 });

    // A redelivery replays the done items and refuses only that one again.
    const again = await deliver(engine, request, book);
    expect(again.status).toBe(422);
    expect(booked).toEqual(['m1', 'm0', 'm2']);
  });

  it('a repeated id runs once: an identical repeat shares the outcome object, one with another body is refused without reaching the store', async () => {
    const { engine, store, booked } = setup();
    const book = (event: Event) => booked.push(event.id!);
    const batch = [{ id: 'r1', n: 1 }, { id: 'r2' }, { id: 'r1', n: 1 }, { id: 'r1', n: 2 }];
    const { run, idempotency } = running(await engine.begin(post(batch)));
    const outcomes = await idempotency.batch!.each<Event>(book);
    expect(booked).toEqual(['r1', 'r2']);
    expect(store.claimed.filter((id) => !id.startsWith('batch:'))).toEqual(['r1', 'r2']);
    expect(outcomes[2]).toBe(outcomes[0]);
    expect(outcomes[3]!.refused).toBeInstanceOf(FingerprintMismatch);
    expect((await run.finish(ok()))?.status).toBe(422);
  });

  it('without fingerprints, every repeat of an id shares its first outcome', async () => {
    const store = new InMemoryStore();
    const engine = createEngine({
      guard: new IdempotencyGuard(store),
      preset: preset(),
      fingerprint: false,
    });
    const booked: string[] = [];
    const batch = [
      { id: 'u1', n: 1 },
      { id: 'u1', n: 2 },
    ];
    const { run, idempotency } = running(await engine.begin(post(batch)));
    const outcomes = await idempotency.batch!.each<Event>((event) => booked.push(event.id!));
    expect(booked).toEqual(['u1']);
    expect(outcomes[1]).toBe(outcomes[0]);
    expect(await run.finish(ok())).toBeNull();
  });

  it('names five refused items in the answer and counts the rest', async () => {
    const { engine } = setup();
    const ids = ['x1', 'x2', 'x3', 'x4', 'x5', 'x6', 'x7'];
    await deliver(engine, post(ids.map((id) => ({ id, n: 1 }))), () => 0);
    const changed = await deliver(
      engine,
      post([{ id: 'x0' }, ...ids.map((id) => ({ id, n: 2 }))]),
      () => 0,
    );
    expect(changed.status).toBe(422);
    expect(JSON.parse(changed.text).message).toContain(
      'batchy/x1, batchy/x2, batchy/x3, batchy/x4, batchy/x5 and 2 more',
    );
  });

  it('an item that throws after a refused one stops the batch there; the batch is answered with the refusal and the retry runs the rest', async () => {
    const { engine, booked } = setup();
    let failing = true;
    const book = (event: Event) => {
      if (event.id === 'f2' && failing) throw new Error('ledger down');
      booked.push(event.id!);
    };
    await deliver(engine, post([{ id: 'f0', n: 1 }]), book);
    const batch = [{ id: 'f0', n: 2 }, { id: 'f1' }, { id: 'f2' }, { id: 'f3' }];
    const first = await deliver(engine, post(batch), book);
    expect(first.status).toBe(422);
    expect(booked).toEqual(['f0', 'f1']);
    failing = false;
    expect((await deliver(engine, post(batch), book)).status).toBe(422);
    expect(booked).toEqual(['f0', 'f1', 'f2', 'f3']);
  });

  it('an item the store fails on stops the batch at once with 503, after a refused one too', async () => {
    const { engine, store, booked } = setup();
    const book = (event: Event) => booked.push(event.id!);
    await deliver(engine, post([{ id: 'g0', n: 1 }]), book);
    store.failClaimsOf = 'g2';
    const batch = [{ id: 'g0', n: 2 }, { id: 'g1' }, { id: 'g2' }, { id: 'g3' }];
    const answered = await deliver(engine, post(batch), book);
    expect([answered.status, JSON.parse(answered.text).code]).toEqual([
      503,
      'ERR_IDEMPOTENCY_STORE',
    ]);
    expect(booked).toEqual(['g0', 'g1']);
    store.failClaimsOf = undefined;
    expect((await deliver(engine, post(batch), book)).status).toBe(422);
    expect(booked).toEqual(['g0', 'g1', 'g2', 'g3']);
  });

  it('a batch whose own receipt was taken over once stale: the run that did every item sends its own answer; a run that did not stays answered 409', async () => {
    let now = 1_000_000;
    const store = new InMemoryStore();
    const guard = new IdempotencyGuard(store, { staleAfterSeconds: 10, clock: () => now });
    const engine = createEngine({ guard, preset: preset() });
    const request = post([{ id: 't1' }, { id: 't2' }]);
    const first = running(await engine.begin(request));
    await first.idempotency.batch!.each(() => {
      now += 6_000; // each item takes 6 s: together, longer than the stale time
    });
    const second = running(await engine.begin(request));
    expect(await guard.find(second.idempotency.key)).toMatchObject({ attempts: 2 });
    expect(await first.run.finish(ok())).toBeNull();
    const outcomes = await second.idempotency.batch!.each(() => 'again');
    expect(outcomes.every((outcome) => !outcome.refused && outcome.isReplay)).toBe(true);
    expect(await second.run.finish(ok())).toBeNull();
    expect(await guard.find(second.idempotency.key)).toMatchObject({ status: 'completed' });

    // A handler that answered without running its items: its answer is not kept, as before.
    const other = post([{ id: 't3' }]);
    const idle = running(await engine.begin(other));
    now += 11_000;
    const taker = running(await engine.begin(other));
    expect((await idle.run.finish(ok()))?.status).toBe(409);
    await taker.idempotency.batch!.each(() => 'ran');
    expect(await taker.run.finish(ok())).toBeNull();
  });

  it("a store failing to complete the batch's own receipt after every item was done: the handler's answer goes out", async () => {
    const { engine, store, find } = setup();
    store.failBatchCompletion = true;
    const { run, idempotency } = running(await engine.begin(post([{ id: 'k1' }])));
    await idempotency.batch!.each(() => 'booked');
    expect(await run.finish(ok())).toBeNull();
    expect(await find('k1')).toMatchObject({ status: 'completed' });
  });

  it('a handler that acknowledges a batch with a failed item sends its answer; the batch stays retryable', async () => {
    const { engine, guard } = setup();
    const request = post([{ id: 's1' }]);
    const { run, idempotency } = running(await engine.begin(request));
    await idempotency
      .batch!.each(() => {
        throw new Error('swallowed');
      })
      .catch(() => undefined);
    expect(await run.finish(ok())).toBeNull();
    expect(await guard.find(idempotency.key)).toMatchObject({ status: 'failed' });
    const retry = running(await engine.begin(request));
    await retry.idempotency.batch!.each(() => 'now');
    expect(await retry.run.finish(ok())).toBeNull();
    expect(await guard.find(retry.idempotency.key)).toMatchObject({ status: 'completed' });
  });

  it('a 2xx sent around the adapter (Koa respond = false, Fastify hijack) after a failed item leaves the batch retryable', async () => {
    const { engine, guard } = setup();
    const request = post([{ id: 'a1' }, { id: 'a2' }]);
    const { run, idempotency } = running(await engine.begin(request));
    const ran: string[] = [];
    await idempotency
      .batch!.each((event) => {
        ran.push((event as Event).id!);
        if ((event as Event).id === 'a2') throw new Error('swallowed');
        return 'ok';
      })
      .catch(() => undefined);
    await run.answeredAround(200, 'ctx.respond = false');
    expect(await guard.find(idempotency.key)).toMatchObject({ status: 'failed' });
    const retry = running(await engine.begin(request));
    await retry.idempotency.batch!.each((event) => {
      ran.push((event as Event).id!);
      return 'now';
    });
    await retry.run.answeredAround(200, 'ctx.respond = false');
    expect(ran).toEqual(['a1', 'a2', 'a2']);
    expect(await guard.find(retry.idempotency.key)).toMatchObject({ status: 'completed' });
  });

  it('two id lists that join into the same text are two batches', async () => {
    const { engine } = setup(preset({ items: (r) => JSON.parse(r.rawBody!.toString()) }));
    const keyOf = async (items: unknown) =>
      running(await engine.begin(post(items))).idempotency.key.externalId;
    const one = await keyOf([{ key: 'a\nb', value: 1 }]);
    const two = await keyOf([
      { key: 'a', value: 1 },
      { key: 'b', value: 1 },
    ]);
    expect(one).not.toBe(two);
  });
});
