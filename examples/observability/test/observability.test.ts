/** Scrapes /metrics after real deliveries: the counters and the histogram come from the guard's events. */
import { SpanStatusCode } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import request from 'supertest';
import { buildApp } from '../src/app';

/** The sample lines of one metric, without HELP/TYPE comments. */
function samples(text: string, name: string): string[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `));
}

describe('the observability example', () => {
  it('first, replay and failure show up in webhook_deliveries_total and the handler histogram', async () => {
    const spans = new InMemorySpanExporter();
    const tracerProvider = new BasicTracerProvider({
      spanProcessors: [new SimpleSpanProcessor(spans)],
    });
    const app = buildApp({ telemetry: { tracerProvider } });
    const server = app.listen(0, '127.0.0.1');
    try {
      const post = (id: string, body: object) =>
        request(server)
          .post('/webhooks/orders')
          .set('x-event-id', id)
          .set('content-type', 'application/json')
          .send(JSON.stringify(body));
      expect((await post('evt_1', { id: 'o1', total: 10 })).status).toBe(201);
      const replay = await post('evt_1', { id: 'o1', total: 10 });
      expect(replay.status).toBe(201);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect((await post('evt_2', { id: 'o2' })).status).toBe(500);

      const scrape = await request(server).get('/metrics');
      expect(scrape.status).toBe(200);
      expect(scrape.headers['content-type']).toContain('text/plain');
      expect(samples(scrape.text, 'webhook_deliveries_total').sort()).toEqual([
        'webhook_deliveries_total{provider="shop",outcome="failed"} 1',
        'webhook_deliveries_total{provider="shop",outcome="first"} 1',
        'webhook_deliveries_total{provider="shop",outcome="replay"} 1',
      ]);
      // The handler ran twice (first, failed); the replay has no handler time.
      expect(samples(scrape.text, 'webhook_handler_duration_seconds_count').sort()).toEqual([
        'webhook_handler_duration_seconds_count{provider="shop",outcome="failed"} 1',
        'webhook_handler_duration_seconds_count{provider="shop",outcome="first"} 1',
      ]);
      expect(scrape.text).toContain(
        'webhook_handler_duration_seconds_bucket{le="+Inf",provider="shop",outcome="first"} 1',
      );
      const sum = samples(scrape.text, 'webhook_handler_duration_seconds_sum').find((line) =>
        line.includes('outcome="first"'),
      );
      const seconds = Number(sum?.split(' ').pop());
      expect(seconds).toBeGreaterThanOrEqual(0);
      expect(seconds).toBeLessThan(5);
      expect(scrape.text).toContain('# TYPE webhook_claims_taken_over_total counter');

      // The same events, as OpenTelemetry spans (instrument() kept the Prometheus listener).
      expect(
        spans
          .getFinishedSpans()
          .map((s) => [s.attributes['webhook.outcome'], s.attributes['http.response.status_code']]),
      ).toEqual([
        ['first', 201],
        ['replay', 201],
        ['failed', 500],
      ]);
      expect(spans.getFinishedSpans()[2]!.status.code).toBe(SpanStatusCode.ERROR);
    } finally {
      await new Promise((resolve) => server.close(resolve));
      await tracerProvider.shutdown();
    }
  });
});
