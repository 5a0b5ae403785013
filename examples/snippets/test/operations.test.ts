/** docs/operations.md, "The two figures": both figures' metrics on an inbox app, the watcher and its senders, a receiver that verifies. */
import { createHmac } from 'node:crypto';
import { metrics } from '@opentelemetry/api';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import { InboxSchema, Schema, SqlInbox } from '@webhook-idempotency/sql';
import Database from 'better-sqlite3';
import request from 'supertest';
import { alertReceiver, instrumentedInbox, startWatcher } from '../src/operations';

const STRIPE_SECRET = 'whsec_stripe_test';
const ALERT_SECRET = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;

function stripeSignature(body: string): string {
  const t = Math.floor(Date.now() / 1000);
  return `t=${t},v1=${createHmac('sha256', STRIPE_SECRET).update(`${t}.${body}`).digest('hex')}`;
}

async function listening(handler: Parameters<typeof createServer>[1]) {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe('docs/operations.md, the two figures', () => {
  it('the inbox app reports the answer time, the failures and the backlog', async () => {
    const db = new Database(':memory:');
    await InboxSchema.createTable(db);
    await Schema.createTable(db);
    const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
    const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
    const meterProvider = new MeterProvider({ readers: [reader] });
    metrics.setGlobalMeterProvider(meterProvider); // as NodeSDK.start() does
    const handled: string[] = [];
    const { app, worker, gauges } = instrumentedInbox(db, STRIPE_SECRET, async (delivery) => {
      handled.push(delivery.externalId);
      if (delivery.externalId === 'evt_bad') throw new Error('declined');
    });
    for (const id of ['evt_1', 'evt_bad']) {
      const body = JSON.stringify({ id, type: 'charge.succeeded' });
      await request(app)
        .post('/webhooks/stripe')
        .set('content-type', 'application/json')
        .set('stripe-signature', stripeSignature(body))
        .send(body)
        .expect(200);
    }
    await reader.forceFlush();
    await worker.runOnce();
    await reader.forceFlush();
    const names = new Set(
      exporter
        .getMetrics()
        .flatMap((r) => r.scopeMetrics.flatMap((s) => s.metrics.map((m) => m.descriptor.name))),
    );
    expect([...names].sort()).toEqual([
      'webhook.answer.duration',
      'webhook.failures',
      'webhook.inbox.delivery.oldest_age',
      'webhook.inbox.delivery.stuck',
      'webhook.inbox.delivery.unfinished',
    ]);
    // In one batch, a handler that throws rolls it back: the others run again (docs/inbox.md).
    expect(new Set(handled)).toEqual(new Set(['evt_1', 'evt_bad']));
    gauges.close();
    metrics.disable();
    await meterProvider.shutdown();
    db.close();
  });

  it('the watcher posts a new dead letter to Slack and, signed, to a receiver that verifies it', async () => {
    const db = new Database(':memory:');
    await InboxSchema.createTable(db);
    await Schema.createTable(db);
    const deliveries = new SqlInbox(db);
    await deliveries.enqueue({
      provider: 'stripe',
      externalId: 'evt_doomed',
      orderingKey: null,
      headers: {},
      body: Buffer.from('{}'),
    });
    const [doomed] = await deliveries.lease({ providers: ['stripe'], limit: 1, leaseMs: 60_000 });
    await deliveries.bury(doomed!, { error: 'Error: no customer' });

    const slackTexts: string[] = [];
    const received: unknown[] = [];
    let arrivals = 0;
    let bothArrived!: () => void;
    const both = new Promise<void>((resolve) => {
      bothArrived = resolve;
    });
    const arrived = () => {
      if (++arrivals === 2) bothArrived();
    };
    const slack = await listening((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => {
        body += c.toString();
      });
      req.on('end', () => {
        slackTexts.push(JSON.parse(body).text);
        res.end('ok');
        arrived();
      });
    });
    const receiverApp = alertReceiver(ALERT_SECRET, (alert) => {
      received.push(alert);
      arrived();
    });
    const ops = await listening(receiverApp);
    const watcher = startWatcher(db, { slack: slack.url, ops: `${ops.url}/alerts` }, ALERT_SECRET);
    try {
      await both;
      expect(slackTexts).toEqual([
        expect.stringMatching(/^\[FIRING\] dead-letters \(stripe\): 1 stripe deliveries died/),
      ]);
      expect(received).toEqual([
        expect.objectContaining({ id: 'dead-letters:stripe', state: 'firing', provider: 'stripe' }),
      ]);
      // A request not signed with the secret is refused.
      await request(receiverApp)
        .post('/alerts')
        .set('content-type', 'application/json')
        .send('{}')
        .expect(401);
    } finally {
      await watcher.stop();
      slack.server.close();
      ops.server.close();
      db.close();
    }
  });
});
