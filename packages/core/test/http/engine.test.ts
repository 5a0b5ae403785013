/** Unit tests of the HTTP engine, without any framework: decisions, finish/abort, answers. */
import {
  ConfigError,
  type GuardEvent,
  IdempotencyGuard,
  InMemoryStore,
  type HttpRequest,
  type IdempotencyOptions,
  type ProviderPreset,
  type Store,
} from '../../src';
import { createEngine, type Decision, type PendingRun } from '../../src/adapter';

interface Native {
  headers: Record<string, string | undefined>;
}

const request = (
  id: string | undefined,
  body = '{"a":1}',
  extra: Partial<HttpRequest<Native>> = {},
): HttpRequest<Native> => ({
  method: 'POST',
  url: '/hook',
  headers: {},
  rawBody: Buffer.from(body),
  body: JSON.parse(body),
  native: { headers: { 'x-id': id } },
  ...extra,
});

const ok = (body = '{"ok":true}', status = 200) => ({
  status,
  headers: {
    'content-type': 'application/json',
    'set-cookie': 'a=b',
    'x-trace': 't',
    'content-length': 11,
  },
  body: Buffer.from(body),
});

describe('methods', () => {
  it.each(['GET', 'HEAD', 'OPTIONS', 'TRACE'])(
    '%s passes through unguarded, with or without a key, and writes no receipt',
    async (method) => {
      const { engine, store } = setup();
      expect((await engine.begin(request('m1', '{}', { method }))).action).toBe('pass');
      expect((await engine.begin(request(undefined, '{}', { method }))).action).toBe('pass');
      expect(
        await store.find({ provider: 'test', externalId: 'm1' }, { now: Date.now() }),
      ).toBeNull();
    },
  );

  it.each(['POST', 'PUT', 'PATCH', 'DELETE'])('%s is guarded', async (method) => {
    const { engine } = setup();
    expect((await engine.begin(request('m2', '{}', { method }))).action).toBe('run');
  });
});

function setup(options: Partial<IdempotencyOptions<Native>> = {}) {
  const store = new InMemoryStore();
  const engine = createEngine<Native>({
    store,
    provider: 'test',
    key: (n) => n.headers['x-id'],
    ...options,
  });
  return { store, engine };
}

function running(decision: Decision): PendingRun {
  if (decision.action !== 'run') throw new Error(`expected run, got ${decision.action}`);
  return decision.run;
}

function responded(decision: Decision) {
  if (decision.action !== 'respond') throw new Error(`expected respond, got ${decision.action}`);
  const text = decision.response.body.toString();
  const json = text.startsWith('{') ? JSON.parse(text) : undefined;
  return { ...decision.response, json, replayed: decision.replayed };
}

describe('createEngine options', () => {
  const store = new InMemoryStore();
  const key = () => '1';
  it.each<[string, Record<string, unknown>]>([
    ['store', { provider: 'p', key }],
    ['store', { store, guard: new IdempotencyGuard(store), provider: 'p', key }],
    [
      'staleAfterSeconds',
      { guard: new IdempotencyGuard(store), staleAfterSeconds: 5, provider: 'p', key },
    ],
    ['key', { store, provider: 'p' }],
    ['provider', { store, key }],
    ['provider', { store, provider: '', key }],
    ['key', { store, key, preset: { provider: 'p', key, needsRawBody: false, retentionDays: 1 } }],
    ['inProgressStatus', { store, provider: 'p', key, inProgressStatus: 429 }],
    ['replayedHeader', { store, provider: 'p', key, replayedHeader: 'bad header' }],
    ['maxResponseBytes', { store, provider: 'p', key, maxResponseBytes: -1 }],
    ['onMissingKey', { store, provider: 'p', key, onMissingKey: 'ignore' }],
    ['fingerprint', { store, provider: 'p', key, fingerprint: 'sha1' }],
    ['verify', { store, provider: 'p', key, verify: true }],
    ['stor', { stor: store, store, provider: 'p', key }],
    ['transactional', { store, provider: 'p', key, transactional: true }],
  ])('throws a ConfigError naming %s', (option, options) => {
    expect(() => createEngine(options as IdempotencyOptions)).toThrow(ConfigError);
    try {
      createEngine(options as IdempotencyOptions);
    } catch (error) {
      expect((error as ConfigError).option).toBe(option);
    }
  });
});

describe('engine.begin', () => {
  it('runs the first delivery, completes it, and replays the stored answer byte for byte with the marker', async () => {
    const { engine, store } = setup();
    const run = running(await engine.begin(request('e1')));
    expect(await run.finish(ok())).toBeNull();
    expect(
      (await store.find({ provider: 'test', externalId: 'e1' }, { now: Date.now() }))?.status,
    ).toBe('completed');
    const replay = responded(await engine.begin(request('e1')));
    expect(replay).toMatchObject({ status: 200, replayed: true, json: { ok: true } });
    expect(replay.headers).toEqual({
      'content-type': 'application/json',
      'x-trace': 't',
      'Idempotent-Replayed': 'true',
    });
  });

  it('stores non-UTF-8 bodies as base64 and replays the same bytes', async () => {
    const { engine } = setup();
    const bytes = Buffer.from([0xff, 0x00, 0xc3, 0x28, 0x41]);
    await running(await engine.begin(request('bin'))).finish({
      status: 200,
      headers: {},
      body: bytes,
    });
    const replay = await engine.begin(request('bin'));
    expect(replay.action === 'respond' && replay.response.body.equals(bytes)).toBe(true);
  });

  it('answers 409 with Retry-After while the claim is fresh, then replays once finished', async () => {
    const { engine } = setup();
    const run = running(await engine.begin(request('e2')));
    const busy = responded(await engine.begin(request('e2')));
    expect(busy).toMatchObject({
      status: 409,
      headers: { 'retry-after': '300' },
      json: { code: 'ERR_IDEMPOTENCY_IN_PROGRESS' },
    });
    await run.finish(ok());
    expect(responded(await engine.begin(request('e2'))).replayed).toBe(true);
  });

  it('answers 503 in progress when asked to', async () => {
    const { engine } = setup({ inProgressStatus: 503 });
    running(await engine.begin(request('e3')));
    expect(responded(await engine.begin(request('e3'))).status).toBe(503);
  });

  it('a non-2xx answer fails the receipt and goes out unchanged; the next delivery runs again', async () => {
    const { engine, store } = setup();
    expect(await running(await engine.begin(request('e4'))).finish(ok('{}', 500))).toBeNull();
    const receipt = await store.find({ provider: 'test', externalId: 'e4' }, { now: Date.now() });
    expect(receipt).toMatchObject({
      status: 'failed',
      error: 'UnsuccessfulAnswer: the handler answered HTTP 500',
    });
    const again = await engine.begin(request('e4'));
    expect(again.action === 'run' && again.idempotency).toMatchObject({
      attempts: 2,
      isRetry: true,
    });
  });

  it('abort marks the receipt failed with the error text', async () => {
    const { engine, store } = setup();
    await running(await engine.begin(request('e5'))).abort(new Error('boom'));
    expect(
      await store.find({ provider: 'test', externalId: 'e5' }, { now: Date.now() }),
    ).toMatchObject({ status: 'failed', error: 'Error: boom' });
  });

  it('answers 400 naming the missing key, or passes through when asked', async () => {
    const { engine } = setup({ keyDescription: 'X-Id header' });
    const answer = responded(await engine.begin(request(undefined)));
    expect(answer).toMatchObject({ status: 400, json: { code: 'ERR_IDEMPOTENCY_KEY_MISSING' } });
    expect(answer.json.message).toContain('X-Id header');
    expect(
      (await setup({ onMissingKey: 'passthrough' }).engine.begin(request(undefined))).action,
    ).toBe('pass');
  });

  it('answers 400 for a key over the limit', async () => {
    const { engine } = setup();
    expect(responded(await engine.begin(request('x'.repeat(161)))).json.code).toBe(
      'ERR_IDEMPOTENCY_KEY_INVALID',
    );
  });

  it('answers 422 for the same id with another body, and keeps the original', async () => {
    const { engine } = setup();
    await running(await engine.begin(request('e6', '{"a":1}'))).finish(ok());
    expect(responded(await engine.begin(request('e6', '{"a":2}'))).status).toBe(422);
    expect(responded(await engine.begin(request('e6', '{"a":1}'))).replayed).toBe(true);
  });

  it('falls back to a canonical JSON fingerprint without raw bytes, and can be switched off', async () => {
    const { engine } = setup();
    await running(
      await engine.begin(request('e7', '{"a":1,"b":2}', { rawBody: undefined })),
    ).finish(ok());
    expect(
      responded(await engine.begin(request('e7', '{"b":2,"a":1}', { rawBody: undefined })))
        .replayed,
    ).toBe(true);
    expect(
      responded(await engine.begin(request('e7', '{"b":3}', { rawBody: undefined }))).status,
    ).toBe(422);
    const off = setup({ fingerprint: false }).engine;
    await running(await off.begin(request('e8', '{"a":1}'))).finish(ok());
    expect(responded(await off.begin(request('e8', '{"a":2}'))).replayed).toBe(true);
  });

  it('verify false answers 401 before any claim', async () => {
    const seen: Array<Buffer | undefined> = [];
    const { engine, store } = setup({
      verify: (_n, raw) => {
        seen.push(raw);
        return false;
      },
    });
    expect(responded(await engine.begin(request('e9'))).status).toBe(401);
    expect(seen[0]?.toString()).toBe('{"a":1}');
    expect(store.size).toBe(0);
  });

  it('store failures answer 503 (fail closed) or pass through when asked', async () => {
    const down = new Error('connection refused');
    const failing = {
      capabilities: { crossProcess: true, transactional: false, clock: 'caller' },
    } as Store;
    for (const method of ['claim', 'reclaim', 'complete', 'fail', 'find', 'purge'] as const)
      Object.assign(failing, { [method]: () => Promise.reject(down) });
    const engine = createEngine<Native>({
      store: failing,
      provider: 'test',
      key: (n) => n.headers['x-id'],
    });
    expect(responded(await engine.begin(request('e10')))).toMatchObject({
      status: 503,
      json: { code: 'ERR_IDEMPOTENCY_STORE' },
    });
    const open = createEngine<Native>({
      store: failing,
      provider: 'test',
      key: (n) => n.headers['x-id'],
      onStoreError: 'passthrough',
    });
    expect((await open.begin(request('e10'))).action).toBe('pass');
  });

  it('a response over maxResponseBytes fails the receipt and rejects for the framework', async () => {
    const { engine, store } = setup({ maxResponseBytes: 4 });
    await expect(
      running(await engine.begin(request('e11'))).finish(ok('12345')),
    ).rejects.toMatchObject({ code: 'ERR_IDEMPOTENCY_RESPONSE_TOO_LARGE' });
    expect(
      (await store.find({ provider: 'test', externalId: 'e11' }, { now: Date.now() }))?.status,
    ).toBe('failed');
  });

  it('uses a preset: key, pass-through, fingerprint, protocol answers, raw body requirement', async () => {
    const preset: ProviderPreset = {
      provider: 'acme',
      keyDescription: 'Acme-Id header',
      key: (r) => r.headers['acme-id'] as string | undefined,
      passThrough: (r) => r.url === '/status',
      fingerprint: () => 'same',
      inProgress: () => ({ status: 200, headers: {}, body: Buffer.from('busy') }),
      replay: (stored) => ({ ...stored, body: Buffer.from(`${stored.body}!`) }),
      needsRawBody: true,
      retentionDays: 3,
    };
    const engine = createEngine({ store: new InMemoryStore(), preset });
    const req = (id: string | undefined, extra: Partial<HttpRequest> = {}): HttpRequest => ({
      method: 'POST',
      url: '/',
      headers: id ? { 'acme-id': id } : {},
      rawBody: Buffer.from('x'),
      body: undefined,
      native: null,
      ...extra,
    });
    expect((await engine.begin(req('1', { url: '/status' }))).action).toBe('pass');
    expect(responded(await engine.begin(req(undefined))).json.message).toContain('Acme-Id header');
    // Data parsed without its bytes kept: the app's setup is wrong (thrown for the framework, 500).
    await expect(
      engine.begin(req('1', { rawBody: undefined, body: { a: 1 } })),
    ).rejects.toMatchObject({ code: 'ERR_IDEMPOTENCY_RAW_BODY_MISSING' });
    // Nothing parsed at all (a content-type no parser reads): the request cannot be verified (401).
    const unverifiable = responded(await engine.begin(req('1', { rawBody: undefined })));
    expect(unverifiable.status).toBe(401);
    expect(unverifiable.json.code).toBe('ERR_IDEMPOTENCY_SIGNATURE_INVALID');
    const run = running(await engine.begin(req('1')));
    expect(responded(await engine.begin(req('1'))).body.toString()).toBe('busy');
    await run.finish(ok('done'));
    expect(
      responded(await engine.begin(req('1', { rawBody: Buffer.from('other') }))).body.toString(),
    ).toBe('done!');
  });

  it("answers a verified handshake with the preset's record, before any claim; an unverified one gets 401", async () => {
    const store = new InMemoryStore();
    const preset: ProviderPreset = {
      provider: 'chat',
      key: (r) => r.headers['x-id'] as string | undefined,
      verify: (r) => r.headers['x-sig'] === 'good',
      handshake: (r) =>
        r.headers['x-kind'] === 'ping'
          ? {
              status: 200,
              headers: { 'content-type': 'application/json' },
              body: Buffer.from('{"type":1}'),
            }
          : undefined,
      needsRawBody: false,
      retentionDays: 1,
    };
    const engine = createEngine({ store, preset });
    const req = (headers: Record<string, string>): HttpRequest => ({
      method: 'POST',
      url: '/',
      headers,
      rawBody: Buffer.from('{}'),
      body: undefined,
      native: null,
    });
    const pong = responded(
      await engine.begin(req({ 'x-sig': 'good', 'x-kind': 'ping', 'x-id': 'p1' })),
    );
    expect(pong.status).toBe(200);
    expect(pong.body.toString()).toBe('{"type":1}');
    expect(
      await store.find({ provider: 'chat', externalId: 'p1' }, { now: Date.now() }),
    ).toBeNull();
    expect(responded(await engine.begin(req({ 'x-sig': 'bad', 'x-kind': 'ping' }))).status).toBe(
      401,
    );
    expect((await engine.begin(req({ 'x-sig': 'good', 'x-id': 'd1' }))).action).toBe('run');
  });

  it('hands the transaction of a transactional store to the handler', async () => {
    const inner = new InMemoryStore();
    const store: Store<{ id: number }> = Object.assign(Object.create(inner) as InMemoryStore, {
      capabilities: { ...inner.capabilities, transactional: true },
      withTransaction: <T>(work: (tx: { id: number }) => Promise<T>) => work({ id: 7 }),
    }) as unknown as Store<{ id: number }>;
    const engine = createEngine<Native, { id: number }>({
      store,
      transactional: true,
      provider: 'test',
      key: (n) => n.headers['x-id'],
    });
    const decision = await engine.begin(request('t1'));
    expect(decision.action === 'run' && decision.idempotency).toMatchObject({
      attempts: 1,
      isRetry: false,
      transaction: { id: 7 },
    });
    // A transactional run has a deadline: adapters wait for its expiry; a plain run has none.
    expect(decision.action === 'run' && decision.run.expires).toBe(true);
    const plain = createEngine<Native>({
      store: inner,
      provider: 'test',
      key: (n) => n.headers['x-id'],
    });
    const untimed = await plain.begin(request('t2'));
    expect(untimed.action === 'run' && untimed.run.expires).toBe(false);
  });
});

describe('transactional begin past the deadline', () => {
  /** A transactional store whose transactions never begin (a connection that never frees up). */
  class NeverBegins extends InMemoryStore {
    override readonly capabilities = {
      crossProcess: false,
      transactional: true,
      clock: 'caller' as const,
    };
    withTransaction<T>(): Promise<T> {
      return new Promise<T>(() => undefined);
    }
  }

  it('answers 503 and reports the won claim as a failed delivery', async () => {
    const events: GuardEvent[] = [];
    const engine = createEngine<Native>({
      store: new NeverBegins(),
      provider: 'test',
      key: (n) => n.headers['x-id'],
      transactional: true,
      handlerTimeoutSeconds: 0.05,
      onEvent: (e) => events.push(e),
    });
    const answer = responded(await engine.begin(request('begin-timeout')));
    expect(answer.status).toBe(503);
    expect(events.filter((e) => e.type === 'delivered')).toEqual([
      expect.objectContaining({ outcome: 'failed', status: 503 }),
    ]);
  });
});
