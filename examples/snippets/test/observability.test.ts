/** docs/observability.md: the logging listener, instrument() on a guard and an adapter, explicit providers. */
import { trace } from '@opentelemetry/api';
import { AggregationTemporality, InMemoryMetricExporter } from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { RequestKey, type GuardEvent } from '@webhook-idempotency/core';
import request from 'supertest';
import {
  instrumentedApp,
  instrumentedGuard,
  loggingListener,
  withProviders,
} from '../src/observability';

describe('docs/observability.md', () => {
  it('the listener writes one line per delivery with its outcome and times', async () => {
    const lines: string[] = [];
    await instrumentedGuard(loggingListener((line) => lines.push(line)));
    expect(lines).toEqual([
      expect.stringMatching(/^stripe\/evt_1 first status=- total=\d+\.\dms handler=\d+\.\dms$/),
    ]);
  });

  it('instrument() keeps the listener passed and records spans on the global provider once an SDK is registered', async () => {
    const spans = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
    trace.setGlobalTracerProvider(provider);
    try {
      const seen: GuardEvent['type'][] = [];
      await instrumentedGuard((event) => seen.push(event.type));
      expect(seen).toEqual(['claimed', 'completed', 'delivered']);
      expect(spans.getFinishedSpans().map((s) => s.attributes['webhook.outcome'])).toEqual([
        'first',
      ]);
    } finally {
      trace.disable();
      await provider.shutdown();
    }
  });

  it('the adapter form answers and replays as usual', async () => {
    const app = instrumentedApp();
    const first = await request(app)
      .post('/webhooks/github')
      .set('x-github-delivery', 'd1')
      .send('{}');
    const again = await request(app)
      .post('/webhooks/github')
      .set('x-github-delivery', 'd1')
      .send('{}');
    expect(first.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
  });

  it('explicit providers get the spans and the metrics', async () => {
    const spans = new InMemorySpanExporter();
    const metrics = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
    const { guard, reader, tracerProvider, meterProvider } = withProviders(spans, metrics);
    try {
      await guard.run(new RequestKey('github', 'd1'), () => 'ok');
      await reader.forceFlush();
      expect(spans.getFinishedSpans()).toHaveLength(1);
      const names = metrics
        .getMetrics()
        .flatMap((r) => r.scopeMetrics.flatMap((s) => s.metrics.map((m) => m.descriptor.name)));
      expect(names).toEqual(
        expect.arrayContaining(['webhook.deliveries', 'webhook.handler.duration']),
      );
    } finally {
      await meterProvider.shutdown();
      await tracerProvider.shutdown();
    }
  });
});
