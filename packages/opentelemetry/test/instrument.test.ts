/** Spans and metrics from real deliveries (the guard, then Express), read back from the SDK's in-memory exporters. */
import { context, metrics, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { running } from '@webhook-idempotency/adapter-conformance';
import {
  ConfigError,
  type GuardEvent,
  IdempotencyGuard,
  InMemoryStore,
  RequestKey,
} from '@webhook-idempotency/core';
import { idempotent } from '@webhook-idempotency/express';
import express from 'express';
import request from 'supertest';
import { instrument, MetricName, telemetryListener } from '../src';
import { byOutcome, createSdk } from './helpers/sdk';

/** Waits until at least `ms` have passed by `performance.now()`. */
async function busyFor(ms: number): Promise<void> {
  const start = performance.now();
  while (performance.now() - start < ms) {
    await new Promise((resolve) =>
      setTimeout(resolve, Math.max(1, ms - (performance.now() - start))),
    );
  }
}

function fakeClock(start = Date.UTC(2026, 11, 1)) {
  let now = start;
  return {
    now: () => now,
    advance: (ms: number): void => {
      now += ms;
    },
  };
}

const hrToMs = ([s, ns]: [number, number]) => s * 1000 + ns / 1e6;

let sdk: ReturnType<typeof createSdk>;
beforeEach(() => {
  sdk = createSdk();
});
afterEach(() => sdk.shutdown());

describe('through the guard', () => {
  function guardWith(clock = fakeClock()) {
    const store = new InMemoryStore();
    const { tracerProvider, meterProvider } = sdk;
    const options = instrument(
      { staleAfterSeconds: 60, clock: clock.now },
      { tracerProvider, meterProvider },
    );
    return { guard: new IdempotencyGuard(store, options), clock, store };
  }
  const key = new RequestKey('stripe', 'evt_1');

  it('a first delivery: one span with provider, event id, outcome and attempts; the counter and the handler histogram', async () => {
    const { guard } = guardWith();
    await guard.run(key, async () => {
      await busyFor(30);
      return { ok: true };
    });
    const [span, ...others] = sdk.spans();
    expect(others).toEqual([]);
    expect(span!.name).toBe('webhook stripe');
    expect(span!.attributes).toEqual({
      'webhook.provider': 'stripe',
      'webhook.event_id': 'evt_1',
      'webhook.outcome': 'first',
      'webhook.attempts': 1,
    });
    expect(span!.status.code).toBe(SpanStatusCode.UNSET);
    // The span covers the delivery: at least the handler's 30 ms.
    expect(hrToMs(span!.endTime) - hrToMs(span!.startTime)).toBeGreaterThanOrEqual(30);

    expect(byOutcome(await sdk.points(MetricName.DELIVERIES))).toEqual({ 'stripe:first': 1 });
    const [handler] = await sdk.points(MetricName.HANDLER_DURATION);
    expect(handler!.attributes).toEqual({
      'webhook.provider': 'stripe',
      'webhook.outcome': 'first',
    });
    expect(handler!.value).toMatchObject({ count: 1 });
    expect((handler!.value as { sum: number }).sum).toBeGreaterThanOrEqual(0.03);
    expect((handler!.value as { sum: number }).sum).toBeLessThan(5);
    expect(await sdk.points(MetricName.DELIVERY_DURATION)).toHaveLength(1);
  });

  it('a replay: a second span with outcome replay, no handler time recorded for it', async () => {
    const { guard } = guardWith();
    await guard.run(key, () => 'once');
    await guard.run(key, () => 'never');
    expect(sdk.spans().map((s) => s.attributes['webhook.outcome'])).toEqual(['first', 'replay']);
    expect(sdk.spans()[1]!.attributes['webhook.attempts']).toBe(1);
    expect(byOutcome(await sdk.points(MetricName.DELIVERIES))).toEqual({
      'stripe:first': 1,
      'stripe:replay': 1,
    });
    expect(byOutcome(await sdk.points(MetricName.HANDLER_DURATION))).toEqual({ 'stripe:first': 1 });
  });

  it('a duplicate while the first is in flight: outcome conflict', async () => {
    const { guard } = guardWith();
    let release!: () => void;
    const first = guard.run(
      key,
      () =>
        new Promise<string>((resolve) => {
          release = () => resolve('done');
        }),
    );
    await new Promise((resolve) => setImmediate(resolve));
    await expect(guard.run(key, () => 'dup')).rejects.toMatchObject({ name: 'RequestInProgress' });
    release();
    await first;
    expect(sdk.spans().map((s) => s.attributes['webhook.outcome'])).toEqual(['conflict', 'first']);
    expect(sdk.spans()[0]!.attributes['webhook.attempts']).toBe(0);
    expect(byOutcome(await sdk.points(MetricName.DELIVERIES))).toEqual({
      'stripe:conflict': 1,
      'stripe:first': 1,
    });
  });

  it('a failure: outcome failed, span status ERROR, the handler histogram under failed', async () => {
    const { guard } = guardWith();
    await expect(guard.run(key, () => Promise.reject(new Error('declined')))).rejects.toThrow(
      'declined',
    );
    const [span] = sdk.spans();
    expect(span!.attributes['webhook.outcome']).toBe('failed');
    expect(span!.status).toEqual({ code: SpanStatusCode.ERROR, message: 'failed' });
    expect(byOutcome(await sdk.points(MetricName.DELIVERIES))).toEqual({ 'stripe:failed': 1 });
    expect(byOutcome(await sdk.points(MetricName.HANDLER_DURATION))).toEqual({
      'stripe:failed': 1,
    });
    // A retry of a failed receipt is no stale takeover.
    await guard.run(key, () => 'second try');
    expect(await sdk.points(MetricName.STALE_TAKEOVERS)).toEqual([]);
  });

  it('a stale claim taken over: the takeover counter, and the new run at attempt 2', async () => {
    const { guard, clock } = guardWith();
    await guard.claim(key); // its worker died: never settled
    clock.advance(61_000);
    await guard.run(key, () => 'taken over');
    expect(await sdk.points(MetricName.STALE_TAKEOVERS)).toEqual([
      { attributes: { 'webhook.provider': 'stripe' }, value: 1 },
    ]);
    const [span] = sdk.spans();
    expect(span!.attributes).toMatchObject({ 'webhook.outcome': 'first', 'webhook.attempts': 2 });
  });

  it('a store that is down: outcome store_error, span status ERROR', async () => {
    const store = new InMemoryStore();
    store.claim = () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:5432'));
    const { tracerProvider, meterProvider } = sdk;
    const guard = new IdempotencyGuard(store, {
      onEvent: telemetryListener({ tracerProvider, meterProvider }),
    });
    await expect(guard.run(key, () => 'never')).rejects.toMatchObject({ name: 'StoreError' });
    expect(sdk.spans()[0]!.status.code).toBe(SpanStatusCode.ERROR);
    expect(byOutcome(await sdk.points(MetricName.DELIVERIES))).toEqual({ 'stripe:store_error': 1 });
  });
});

describe('through Express', () => {
  async function start() {
    const clock = fakeClock();
    const store = new InMemoryStore();
    let release: (() => void) | undefined;
    const app = express();
    const { tracerProvider, meterProvider } = sdk;
    app.post(
      '/hook',
      express.raw({ type: '*/*' }),
      idempotent(
        instrument(
          {
            store,
            clock: clock.now,
            staleAfterSeconds: 60,
            provider: 'shop',
            key: (req) => req.get('x-event-id'),
          },
          { tracerProvider, meterProvider },
        ),
      ),
      async (req, res) => {
        const mode = req.get('x-mode');
        if (mode === 'hold') await new Promise<void>((resolve) => (release = resolve));
        if (mode === 'fail') return void res.status(500).json({ error: 'downstream' });
        res.status(201).json({ created: true });
      },
    );
    const server = await running(app.listen(0, '127.0.0.1'));
    return { ...server, clock, store, release: () => release?.() };
  }

  /** Spans are ended just after the answer is recorded: wait for `n` of them. */
  async function spans(n: number) {
    for (let i = 0; i < 100 && sdk.spans().length < n; i++)
      await new Promise((r) => setTimeout(r, 5));
    return sdk
      .spans()
      .map((s) => [
        s.attributes['webhook.outcome'],
        s.attributes['http.response.status_code'],
        s.attributes['webhook.attempts'],
      ]);
  }

  it('first, replay, conflict (409 while in flight), failure (500) and a stale claim taken over', async () => {
    const app = await start();
    try {
      const post = (id: string, mode = '') =>
        request(app.server).post('/hook').set('x-event-id', id).set('x-mode', mode).send('body');
      expect((await post('e1')).status).toBe(201);
      expect((await post('e1')).status).toBe(201);
      const held = post('e2', 'hold').then((r) => r);
      for (
        let i = 0;
        i < 100 && !(await app.store.find({ provider: 'shop', externalId: 'e2' }, { now: 0 }));
        i++
      )
        await new Promise((r) => setTimeout(r, 5));
      expect((await post('e2')).status).toBe(409);
      app.release();
      expect((await held).status).toBe(201);
      expect((await post('e3', 'fail')).status).toBe(500);

      // A worker that claimed e4 and died; after staleAfterSeconds the next delivery takes over.
      const dead = new IdempotencyGuard(app.store, { clock: app.clock.now });
      await dead.claim(new RequestKey('shop', 'e4'));
      app.clock.advance(61_000);
      expect((await post('e4')).status).toBe(201);

      expect(await spans(6)).toEqual([
        ['first', 201, 1],
        ['replay', 201, 1],
        ['conflict', 409, 0],
        ['first', 201, 1],
        ['failed', 500, 1],
        ['first', 201, 2],
      ]);
      expect(byOutcome(await sdk.points(MetricName.DELIVERIES))).toEqual({
        'shop:first': 3,
        'shop:replay': 1,
        'shop:conflict': 1,
        'shop:failed': 1,
      });
      expect(byOutcome(await sdk.points(MetricName.HANDLER_DURATION))).toEqual({
        'shop:first': 3,
        'shop:failed': 1,
      });
      expect(await sdk.points(MetricName.STALE_TAKEOVERS)).toEqual([
        { attributes: { 'webhook.provider': 'shop' }, value: 1 },
      ]);
    } finally {
      await app.close();
    }
  });
});

describe('trace context', () => {
  beforeEach(() => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  });
  afterEach(() => {
    context.disable();
  });

  it('a delivery span is a child of the span active around guard.run', async () => {
    const { tracerProvider, meterProvider } = sdk;
    const guard = new IdempotencyGuard(
      new InMemoryStore(),
      instrument({}, { tracerProvider, meterProvider }),
    );
    const tracer = tracerProvider.getTracer('app');
    await tracer.startActiveSpan('queue message', async (parent) => {
      await guard.run(new RequestKey('p', 'child'), () => 'ok');
      parent.end();
    });
    const webhook = sdk.spans().find((s) => s.name === 'webhook p')!;
    const parent = sdk.spans().find((s) => s.name === 'queue message')!;
    expect(webhook.parentSpanContext?.spanId).toBe(parent.spanContext().spanId);
    expect(webhook.spanContext().traceId).toBe(parent.spanContext().traceId);
  });

  it('over Express, a child of the request span an earlier middleware made active', async () => {
    const { tracerProvider, meterProvider } = sdk;
    const tracer = tracerProvider.getTracer('http');
    const app = express();
    app.use((_req, res, next) => {
      const span = tracer.startSpan('POST /hook');
      res.once('finish', () => span.end());
      context.with(trace.setSpan(context.active(), span), next);
    });
    app.post(
      '/hook',
      express.raw({ type: '*/*' }),
      idempotent(
        instrument(
          { store: new InMemoryStore(), provider: 'shop', key: (req) => req.get('x-event-id') },
          { tracerProvider, meterProvider },
        ),
      ),
      (_req, res) => void res.status(201).json({ ok: true }),
    );
    const server = await running(app.listen(0, '127.0.0.1'));
    try {
      expect(
        (await request(server.server).post('/hook').set('x-event-id', 'c1').send('x')).status,
      ).toBe(201);
      for (let i = 0; i < 100 && sdk.spans().length < 2; i++)
        await new Promise((r) => setTimeout(r, 5));
      const webhook = sdk.spans().find((s) => s.name === 'webhook shop')!;
      const http = sdk.spans().find((s) => s.name === 'POST /hook')!;
      expect(webhook.parentSpanContext?.spanId).toBe(http.spanContext().spanId);
    } finally {
      await server.close();
    }
  });
});

describe('composition', () => {
  it("keeps the application's own listener, which sees every event", async () => {
    const seen: GuardEvent['type'][] = [];
    const options = instrument(
      { onEvent: (event: GuardEvent) => void seen.push(event.type) },
      { meterProvider: sdk.meterProvider, tracerProvider: sdk.tracerProvider },
    );
    const guard = new IdempotencyGuard(new InMemoryStore(), options);
    await guard.run(new RequestKey('p', '1'), () => 'ok');
    expect(seen).toEqual(['claimed', 'completed', 'delivered']);
    expect(sdk.spans()).toHaveLength(1);
  });

  it("a telemetry failure does not keep events from the application's listener", async () => {
    const seen: GuardEvent['type'][] = [];
    const failing = {
      getTracer: () => ({
        startSpan: () => {
          throw new Error('exporter bug');
        },
      }),
    };
    const options = instrument(
      { onEvent: (event: GuardEvent) => void seen.push(event.type) },
      { tracerProvider: failing as never, meterProvider: sdk.meterProvider },
    );
    const guard = new IdempotencyGuard(new InMemoryStore(), options);
    await guard.run(new RequestKey('p', '1'), () => 'ok');
    expect(seen).toEqual(['claimed', 'completed', 'delivered']);
    expect(byOutcome(await sdk.points(MetricName.DELIVERIES))).toEqual({ 'p:first': 1 });
  });

  it('defaults to the global providers, also when the SDK is registered after instrument() but before traffic', async () => {
    const guard = new IdempotencyGuard(new InMemoryStore(), instrument({}));
    trace.setGlobalTracerProvider(sdk.tracerProvider);
    metrics.setGlobalMeterProvider(sdk.meterProvider);
    try {
      await guard.run(new RequestKey('p', 'late'), () => 'ok');
      expect(sdk.spans().map((s) => s.attributes['webhook.event_id'])).toEqual(['late']);
      expect(byOutcome(await sdk.points(MetricName.DELIVERIES))).toEqual({ 'p:first': 1 });
    } finally {
      trace.disable();
      metrics.disable();
    }
  });

  it('several instrumented guards (one per endpoint) add up in the same metrics', async () => {
    const { tracerProvider, meterProvider } = sdk;
    const stripe = new IdempotencyGuard(
      new InMemoryStore(),
      instrument({}, { tracerProvider, meterProvider }),
    );
    const github = new IdempotencyGuard(
      new InMemoryStore(),
      instrument({}, { tracerProvider, meterProvider }),
    );
    await stripe.run(new RequestKey('stripe', '1'), () => 'ok');
    await stripe.run(new RequestKey('stripe', '2'), () => 'ok');
    await github.run(new RequestKey('github', '1'), () => 'ok');
    expect(byOutcome(await sdk.points(MetricName.DELIVERIES))).toEqual({
      'stripe:first': 2,
      'github:first': 1,
    });
  });

  it('refuses adapter options with a ready guard, and an onEvent that is not a function', () => {
    const guard = new IdempotencyGuard(new InMemoryStore());
    expect(() => instrument({ guard } as never)).toThrow(ConfigError);
    expect(() => instrument({ onEvent: 'log' } as never)).toThrow(
      expect.objectContaining({ option: 'onEvent' }),
    );
  });

  it('returns a new options object and leaves the one passed unchanged', () => {
    const mine = (_event: GuardEvent) => undefined;
    const options = { staleAfterSeconds: 30, onEvent: mine };
    const instrumented = instrument(options, sdk);
    expect(instrumented).not.toBe(options);
    expect(options.onEvent).toBe(mine);
    expect(instrumented.staleAfterSeconds).toBe(30);
    expect(instrumented.onEvent).not.toBe(mine);
  });
});
