/** A route set's answers before any claim are counted by outcome: `ignored`, `refused`, next to `first`. */
import { IdempotencyGuard, InMemoryStore } from '@webhook-idempotency/core';
import {
  type EventPreset,
  routes,
  type StandardSchema,
  validated,
} from '@webhook-idempotency/core/routes';
import { idempotent } from '@webhook-idempotency/express';
import express from 'express';
import request from 'supertest';
import { instrument, MetricName } from '../src';
import { byOutcome, createSdk } from './helpers/sdk';

const shop: EventPreset = {
  provider: 'shop',
  key: (req) => JSON.parse(String(req.rawBody)).id,
  verify: () => true,
  eventType: (req) => JSON.parse(String(req.rawBody)).type,
  needsRawBody: true,
  retentionDays: 7,
};

const positive: StandardSchema<unknown, number> = {
  '~standard': {
    version: 1,
    vendor: 'test',
    validate: (value) => {
      const n = (value as { n?: unknown }).n;
      return typeof n === 'number' && n > 0
        ? { value: n }
        : { issues: [{ message: 'not positive' }] };
    },
  },
};

it('counts ignored and refused deliveries in webhook.deliveries, beside the routed one', async () => {
  const sdk = createSdk();
  try {
    const { tracerProvider, meterProvider } = sdk;
    const guard = new IdempotencyGuard(
      new InMemoryStore(),
      instrument({}, { tracerProvider, meterProvider }),
    );
    const preset = routes(shop, { paid: validated(positive, (n) => n) });
    const app = express().post(
      '/hook',
      express.raw({ type: '*/*' }),
      idempotent({ guard, preset }),
    );
    const post = (body: object) =>
      request(app).post('/hook').set('content-type', 'application/json').send(JSON.stringify(body));
    expect((await post({ id: 'a', type: 'paid', n: 1 })).status).toBe(200);
    expect((await post({ id: 'b', type: 'other' })).status).toBe(200);
    expect((await post({ id: 'c', type: 'paid', n: -1 })).status).toBe(422);
    expect(byOutcome(await sdk.points(MetricName.DELIVERIES))).toEqual({
      'shop:first': 1,
      'shop:ignored': 1,
      'shop:refused': 1,
    });
  } finally {
    await sdk.shutdown();
  }
});
