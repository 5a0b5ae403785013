/**
 * The two production figures and their companions, read back from a real OpenTelemetry SDK's
 * reader with the names, units and instruments docs/observability.md gives: the time to answer
 * (guarded deliveries and the inbox endpoint, over Express), handler failures and dead letters
 * (the inbox worker), and the inbox's backlog as gauges read from the store at collection.
 */
import { DataPointType } from '@opentelemetry/sdk-metrics';
import { InMemoryStore } from '@webhook-idempotency/core';
import {
  createInboxWorker,
  type InboxStore,
  InMemoryInbox,
  type NewDelivery,
} from '@webhook-idempotency/core/inbox';
import { idempotent, inbox } from '@webhook-idempotency/express';
import express from 'express';
import request from 'supertest';
import { instrument, MetricName, observeInbox } from '../src';
import { createSdk } from './helpers/sdk';

let sdk: ReturnType<typeof createSdk>;
beforeEach(() => {
  sdk = createSdk();
});
afterEach(() => sdk.shutdown());

const delivery = (externalId: string, provider = 'stripe'): NewDelivery => ({
  provider,
  externalId,
  orderingKey: null,
  headers: {},
  body: Buffer.from('{}'),
});

describe('webhook.answer.duration', () => {
  it('a guarded delivery: seconds, by provider, outcome and the status answered', async () => {
    const app = express();
    app.post(
      '/hook',
      express.raw({ type: '*/*' }),
      idempotent(
        instrument(
          { store: new InMemoryStore(), provider: 'github', key: (req) => req.get('x-id') },
          { meterProvider: sdk.meterProvider },
        ),
      ),
      (_req, res) => void res.status(201).json({ ok: true }),
    );
    await request(app).post('/hook').set('x-id', 'd1').send('{}').expect(201);
    await request(app).post('/hook').set('x-id', 'd1').send('{}').expect(201);
    expect(await sdk.descriptor(MetricName.ANSWER_DURATION)).toMatchObject({
      name: 'webhook.answer.duration',
      unit: 's',
      dataPointType: DataPointType.HISTOGRAM,
    });
    const points = await sdk.points(MetricName.ANSWER_DURATION);
    expect(points.map((p) => p.attributes)).toEqual([
      {
        'webhook.provider': 'github',
        'webhook.outcome': 'first',
        'http.response.status_code': 201,
      },
      {
        'webhook.provider': 'github',
        'webhook.outcome': 'replay',
        'http.response.status_code': 201,
      },
    ]);
    for (const p of points) {
      expect(p.value).toMatchObject({ count: 1 });
      expect((p.value as { sum: number }).sum).toBeLessThan(5); // seconds, not milliseconds
    }
  });

  it('the inbox endpoint: its time to store and answer, stored then duplicate', async () => {
    const app = express();
    app.post(
      '/hook',
      express.raw({ type: '*/*' }),
      inbox(
        instrument(
          {
            inbox: new InMemoryInbox(),
            provider: 'shopify',
            key: (req: express.Request) => req.get('x-id'),
            // A check that takes 30 ms: the answer time includes it, in seconds.
            verify: () => new Promise<boolean>((resolve) => setTimeout(() => resolve(true), 30)),
          },
          { meterProvider: sdk.meterProvider },
        ),
      ),
    );
    await request(app).post('/hook').set('x-id', 'w1').send('{}').expect(200);
    await request(app).post('/hook').set('x-id', 'w1').send('{}').expect(200);
    const points = await sdk.points(MetricName.ANSWER_DURATION);
    for (const p of points) {
      expect((p.value as { sum: number }).sum).toBeGreaterThanOrEqual(0.029);
      expect((p.value as { sum: number }).sum).toBeLessThan(5);
    }
    expect(points.map((p) => p.attributes)).toEqual([
      {
        'webhook.provider': 'shopify',
        'webhook.outcome': 'stored',
        'http.response.status_code': 200,
      },
      {
        'webhook.provider': 'shopify',
        'webhook.outcome': 'duplicate',
        'http.response.status_code': 200,
      },
    ]);
  });
});

describe('webhook.failures and webhook.inbox.dead_letters', () => {
  it("count the worker's failed attempts and its dead letters, per provider", async () => {
    const deliveries = new InMemoryInbox();
    await deliveries.enqueue(delivery('evt_1'));
    const worker = createInboxWorker(
      instrument(
        {
          inbox: deliveries,
          store: new InMemoryStore(),
          handlers: { stripe: () => Promise.reject(new Error('declined')) },
          maxFailures: 2,
          backoffBaseMs: 0,
          backoffMaxMs: 0,
        },
        { meterProvider: sdk.meterProvider },
      ),
    );
    await worker.runOnce();
    await worker.runOnce();
    expect(await sdk.points(MetricName.FAILURES)).toEqual([
      { attributes: { 'webhook.provider': 'stripe' }, value: 2 },
    ]);
    expect(await sdk.points(MetricName.DEAD_LETTERS)).toEqual([
      { attributes: { 'webhook.provider': 'stripe' }, value: 1 },
    ]);
    expect(await sdk.descriptor(MetricName.FAILURES)).toMatchObject({
      name: 'webhook.failures',
      unit: '{failure}',
      dataPointType: DataPointType.SUM,
    });
    expect(await sdk.descriptor(MetricName.DEAD_LETTERS)).toMatchObject({
      name: 'webhook.inbox.dead_letters',
      unit: '{delivery}',
      dataPointType: DataPointType.SUM,
    });
  });
});

describe('observeInbox: the backlog gauges', () => {
  it('unfinished, stuck past the threshold and the oldest age per provider, from one cached read', async () => {
    let now = Date.UTC(2026, 11, 1);
    const deliveries = new InMemoryInbox({ now: () => now });
    let reads = 0;
    const counted: Pick<InboxStore, 'backlog'> = {
      backlog: (input) => {
        reads++;
        return deliveries.backlog(input);
      },
    };
    await deliveries.enqueue(delivery('a'));
    await deliveries.enqueue(delivery('b'));
    now += 10 * 60_000;
    await deliveries.enqueue(delivery('c'));
    await deliveries.enqueue(delivery('g', 'github'));
    const gauges = observeInbox(counted, {
      stuckAfterMs: 5 * 60_000,
      meterProvider: sdk.meterProvider,
    });
    const value = async (name: string) =>
      Object.fromEntries(
        (await sdk.points(name)).map((p) => [p.attributes['webhook.provider'], p.value]),
      );
    expect(await value(MetricName.UNFINISHED)).toEqual({ stripe: 3, github: 1 });
    expect(await value(MetricName.STUCK)).toEqual({ stripe: 2, github: 0 });
    expect(await value(MetricName.OLDEST_AGE)).toEqual({ stripe: 600, github: 0 });
    expect(reads).toBe(1); // three collections, one read
    for (const [name, unit] of [
      [MetricName.UNFINISHED, '{delivery}'],
      [MetricName.STUCK, '{delivery}'],
      [MetricName.OLDEST_AGE, 's'],
    ] as const)
      expect(await sdk.descriptor(name)).toMatchObject({
        name,
        unit,
        dataPointType: DataPointType.GAUGE,
      });
    expect([MetricName.UNFINISHED, MetricName.STUCK, MetricName.OLDEST_AGE]).toEqual([
      'webhook.inbox.delivery.unfinished',
      'webhook.inbox.delivery.stuck',
      'webhook.inbox.delivery.oldest_age',
    ]);
    gauges.close();
  });

  it('reads again after minReadIntervalMs; a drained provider reports 0; a failed read observes nothing and goes to onError', async () => {
    const deliveries = new InMemoryInbox();
    await deliveries.enqueue(delivery('a'));
    let fail = false;
    const errors: unknown[] = [];
    const flaky: Pick<InboxStore, 'backlog'> = {
      backlog: (input) => (fail ? Promise.reject(new Error('db down')) : deliveries.backlog(input)),
    };
    observeInbox(flaky, {
      minReadIntervalMs: 1,
      meterProvider: sdk.meterProvider,
      onError: (error) => errors.push(error),
    });
    expect((await sdk.points(MetricName.UNFINISHED))[0]!.value).toBe(1);
    const [leased] = await deliveries.lease({ providers: ['stripe'], limit: 1, leaseMs: 60_000 });
    await deliveries.complete(leased!);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect((await sdk.points(MetricName.UNFINISHED))[0]!.value).toBe(0);
    fail = true;
    await new Promise((resolve) => setTimeout(resolve, 5));
    await sdk.points(MetricName.UNFINISHED); // a collection whose read fails: nothing new observed
    expect(errors).toEqual([new Error('db down')]);
  });
});
