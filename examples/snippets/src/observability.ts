/**
 * @module docs/observability.md and packages/opentelemetry/README.md: listening to the timed
 * events, and OpenTelemetry on a guard and on an adapter. test/observability.test.ts runs each.
 */
// #region instrument
import { IdempotencyGuard, InMemoryStore, RequestKey } from '@webhook-idempotency/core';
import { instrument } from '@webhook-idempotency/opentelemetry';
// #endregion instrument
// #region express
import express, { type Express } from 'express';
import { idempotent } from '@webhook-idempotency/express';
// #endregion express
// #region providers
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { telemetryListener } from '@webhook-idempotency/opentelemetry';
// #endregion providers
import type { PushMetricExporter } from '@opentelemetry/sdk-metrics';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { GuardEvent } from '@webhook-idempotency/core';

/** Logs one line per delivery; `write` stands in for your logger. */
export function loggingListener(write: (line: string) => void): (event: GuardEvent) => void {
  // #region listener
  const onEvent = (event: GuardEvent): void => {
    if (event.type === 'delivered') {
      const { key, outcome, status, durationMs, handlerMs } = event;
      write(
        `${key} ${outcome} status=${status ?? '-'} total=${durationMs.toFixed(1)}ms handler=${handlerMs?.toFixed(1) ?? '-'}ms`,
      );
    }
    if (event.type === 'retried' && event.stale) write(`${event.key} stale claim taken over`);
  };
  // #endregion listener
  return onEvent;
}

/** A guard whose events go to OpenTelemetry (the global providers) and to `log`. */
export async function instrumentedGuard(log: (event: GuardEvent) => void) {
  // #region instrument
  const guard = new IdempotencyGuard(
    new InMemoryStore(),
    instrument({ staleAfterSeconds: 120, onEvent: log }), // your listener still gets every event
  );
  await guard.run(new RequestKey('stripe', 'evt_1'), () => ({ received: true }));
  // #endregion instrument
  return guard;
}

/** The adapter form: the options of `idempotent` (with `store`) go through `instrument`. */
export function instrumentedApp(): Express {
  // #region express
  const app = express();
  app.post(
    '/webhooks/github',
    express.raw({ type: 'application/json' }),
    idempotent(
      instrument({
        store: new InMemoryStore(),
        provider: 'github',
        key: (req) => req.get('x-github-delivery'),
      }),
    ),
    (_req, res) => void res.json({ received: true }),
  );
  // #endregion express
  return app;
}

/** Explicit providers instead of the global ones; `spans` and `metrics` are your exporters. */
export function withProviders(spans: SpanExporter, metrics: PushMetricExporter) {
  // #region providers
  const tracerProvider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(spans)],
  });
  const reader = new PeriodicExportingMetricReader({ exporter: metrics });
  const meterProvider = new MeterProvider({ readers: [reader] });
  const onEvent = telemetryListener({ tracerProvider, meterProvider });
  const guard = new IdempotencyGuard(new InMemoryStore(), { onEvent });
  // #endregion providers
  return { guard, reader, tracerProvider, meterProvider };
}
