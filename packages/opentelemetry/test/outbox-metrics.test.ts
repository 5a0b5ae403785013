/**
 * The outbox's metrics, read back from a real OpenTelemetry SDK's reader: the dispatcher's events
 * as counters by sender (through `outboxTelemetryListener` and `instrument()`), and the outbox
 * table's backlog as gauges by sender, read from an inbox-shaped store at collection.
 */
import { DataPointType } from '@opentelemetry/sdk-metrics';
import { type InboxStore, InMemoryInbox } from '@webhook-idempotency/core/inbox';
import type { OutboxEvent, OutboxRef } from '@webhook-idempotency/core/outbox';
import { instrument, MetricName, observeOutbox, outboxTelemetryListener } from '../src';
import { createSdk } from './helpers/sdk';

let sdk: ReturnType<typeof createSdk>;
beforeEach(() => {
  sdk = createSdk();
});
afterEach(() => sdk.shutdown());

const ref = (sender: string, key: string): OutboxRef => ({
  id: 1,
  sender,
  key,
  name: 'refund',
  receipt: { provider: 'stripe', externalId: 'evt_1' },
});

/** A counter's value per sender. */
const bySender = async (name: string) =>
  Object.fromEntries(
    (await sdk.points(name)).map((p) => [p.attributes['webhook.sender'], p.value]),
  );

describe('outboxTelemetryListener: the dispatcher events as counters', () => {
  it('counts sent, retried and dead messages by sender, and nothing else', async () => {
    const record = outboxTelemetryListener({ meterProvider: sdk.meterProvider });
    const events: OutboxEvent[] = [
      { type: 'sent', message: ref('http', 'k1'), attempt: 1 },
      { type: 'retry', message: ref('http', 'k2'), delayMs: 1000, error: 'HTTP 503' },
      { type: 'retry', message: ref('http', 'k2'), delayMs: 2000, error: 'HTTP 503' },
      { type: 'sent', message: ref('http', 'k2'), attempt: 3 },
      { type: 'sent', message: ref('email', 'k3'), attempt: 1 },
      { type: 'dead', message: ref('email', 'k4'), error: 'PermanentSendFailure: SMTP 550' },
      { type: 'given-back', message: ref('http', 'k5') },
      { type: 'lease-lost', message: ref('http', 'k6') },
      { type: 'store-error', operation: 'lease', error: 'db down' },
    ];
    for (const event of events) record(event);
    expect(await bySender(MetricName.OUTBOX_SENT)).toEqual({ http: 2, email: 1 });
    expect(await bySender(MetricName.OUTBOX_RETRIES)).toEqual({ http: 2 });
    expect(await bySender(MetricName.OUTBOX_DEAD)).toEqual({ email: 1 });
    for (const [name, unit] of [
      [MetricName.OUTBOX_SENT, '{message}'],
      [MetricName.OUTBOX_RETRIES, '{attempt}'],
      [MetricName.OUTBOX_DEAD, '{message}'],
    ] as const)
      expect(await sdk.descriptor(name)).toMatchObject({
        name,
        unit,
        dataPointType: DataPointType.SUM,
      });
    expect([MetricName.OUTBOX_SENT, MetricName.OUTBOX_RETRIES, MetricName.OUTBOX_DEAD]).toEqual([
      'webhook.outbox.sent',
      'webhook.outbox.retries',
      'webhook.outbox.dead',
    ]);
  });

  it("instrument() gives dispatcher options the outbox listener, before the application's own", async () => {
    const own: string[] = [];
    const options = instrument(
      { outbox: {}, senders: {}, onEvent: (event: OutboxEvent) => own.push(event.type) },
      { meterProvider: sdk.meterProvider },
    );
    options.onEvent({ type: 'dead', message: ref('http', 'k1'), error: 'HTTP 400' });
    expect(own).toEqual(['dead']);
    expect(await bySender(MetricName.OUTBOX_DEAD)).toEqual({ http: 1 });
    expect(() => instrument({ outbox: {}, senders: {}, onEvent: 'log' as never })).toThrow(
      expect.objectContaining({ name: 'ConfigError', option: 'onEvent' }),
    );
  });
});

describe('observeOutbox: the backlog gauges', () => {
  it('pending, the oldest pending age and the recently dead per sender, from one cached read', async () => {
    let now = Date.UTC(2026, 11, 1);
    const outbox = new InMemoryInbox({ now: () => now });
    let reads = 0;
    const counted: Pick<InboxStore, 'backlog'> = {
      backlog: (input) => {
        reads++;
        return outbox.backlog(input);
      },
    };
    const message = (sender: string, key: string) =>
      outbox.enqueue({
        provider: sender,
        externalId: key,
        orderingKey: null,
        headers: { 'effect-name': 'n', 'receipt-provider': 'stripe', 'receipt-id': 'evt_1' },
        body: Buffer.from('{}'),
      });
    await message('http', 'k1');
    await message('email', 'k2');
    const [refused] = await outbox.lease({ providers: ['email'], limit: 1, leaseMs: 60_000 });
    await outbox.bury(refused!, { error: 'PermanentSendFailure: SMTP 550' });
    now += 10 * 60_000;
    await message('http', 'k3');
    const gauges = observeOutbox(counted, { meterProvider: sdk.meterProvider });
    expect(await bySender(MetricName.OUTBOX_PENDING)).toEqual({ http: 2, email: 0 });
    expect(await bySender(MetricName.OUTBOX_OLDEST_PENDING_AGE)).toEqual({ http: 600, email: 0 });
    expect(await bySender(MetricName.OUTBOX_RECENTLY_DEAD)).toEqual({ http: 0, email: 1 });
    expect(reads).toBe(1); // three collections, one read
    for (const [name, unit] of [
      [MetricName.OUTBOX_PENDING, '{message}'],
      [MetricName.OUTBOX_OLDEST_PENDING_AGE, 's'],
      [MetricName.OUTBOX_RECENTLY_DEAD, '{message}'],
    ] as const)
      expect(await sdk.descriptor(name)).toMatchObject({
        name,
        unit,
        dataPointType: DataPointType.GAUGE,
      });
    gauges.close();
  });

  it('a death older than deadWithinMs no longer counts; a failed read goes to onError', async () => {
    let now = Date.UTC(2026, 11, 1);
    const outbox = new InMemoryInbox({ now: () => now });
    await outbox.enqueue({
      provider: 'http',
      externalId: 'k1',
      orderingKey: null,
      headers: {},
      body: Buffer.from('{}'),
    });
    const [leased] = await outbox.lease({ providers: ['http'], limit: 1, leaseMs: 60_000 });
    await outbox.bury(leased!, { error: 'HTTP 400' });
    let fail = false;
    const errors: unknown[] = [];
    observeOutbox(
      { backlog: (input) => (fail ? Promise.reject(new Error('db down')) : outbox.backlog(input)) },
      {
        deadWithinMs: 60_000,
        minReadIntervalMs: 1,
        meterProvider: sdk.meterProvider,
        onError: (error) => errors.push(error),
      },
    );
    expect(await bySender(MetricName.OUTBOX_RECENTLY_DEAD)).toEqual({ http: 1 });
    now += 2 * 60_000;
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await bySender(MetricName.OUTBOX_RECENTLY_DEAD)).toEqual({ http: 0 });
    fail = true;
    await new Promise((resolve) => setTimeout(resolve, 5));
    await sdk.points(MetricName.OUTBOX_PENDING);
    expect(errors).toEqual([new Error('db down')]);
  });
});
