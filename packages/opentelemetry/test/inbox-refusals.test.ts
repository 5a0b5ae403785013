/**
 * `webhook.inbox.refusals`: the inbox endpoint's refusals over its backlog budget, read back from a
 * real OpenTelemetry SDK over Express; the answer time carries outcome `backpressure` too, and a
 * duplicate answered while refusing is not counted as refused.
 */
import { DataPointType } from '@opentelemetry/sdk-metrics';
import { InMemoryInbox } from '@webhook-idempotency/core/inbox';
import { inbox } from '@webhook-idempotency/express';
import express from 'express';
import request from 'supertest';
import { instrument, MetricName } from '../src';
import { createSdk } from './helpers/sdk';

let sdk: ReturnType<typeof createSdk>;
beforeEach(() => {
  sdk = createSdk();
});
afterEach(() => sdk.shutdown());

it('counts each delivery refused over the backlog budget by provider and status, not the duplicates', async () => {
  const deliveries = new InMemoryInbox();
  await deliveries.enqueue({
    provider: 'shopify',
    externalId: 'w0',
    orderingKey: null,
    headers: {},
    body: Buffer.from('{}'),
  });
  const app = express();
  app.post(
    '/hook',
    express.raw({ type: '*/*' }),
    inbox(
      instrument(
        {
          inbox: deliveries,
          provider: 'shopify',
          key: (req: express.Request) => req.get('x-id'),
          unverified: true,
          backpressure: { maxPending: 1, status: 429 },
        },
        { meterProvider: sdk.meterProvider },
      ),
    ),
  );
  await request(app).post('/hook').set('x-id', 'w1').send('{}').expect(429);
  await request(app).post('/hook').set('x-id', 'w2').send('{}').expect(429);
  await request(app).post('/hook').set('x-id', 'w0').send('{}').expect(200);
  expect(await sdk.points(MetricName.REFUSALS)).toEqual([
    { attributes: { 'webhook.provider': 'shopify', 'http.response.status_code': 429 }, value: 2 },
  ]);
  expect(await sdk.descriptor(MetricName.REFUSALS)).toMatchObject({
    name: 'webhook.inbox.refusals',
    unit: '{refusal}',
    dataPointType: DataPointType.SUM,
  });
  const outcomes = (await sdk.points(MetricName.ANSWER_DURATION)).map(
    (p) => p.attributes['webhook.outcome'],
  );
  expect(outcomes.sort()).toEqual(['backpressure', 'duplicate']);
});
