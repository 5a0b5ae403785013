/** @module Guard events as Prometheus metrics with prom-client: the counters and histogram the dashboards read. */
// #region prometheus
import type { GuardEvent } from '@webhook-idempotency/core';
import { Counter, Histogram, type Registry } from 'prom-client';

/** Registers the webhook metrics on `registry` and returns the guard listener that feeds them. */
export function prometheusListener(registry: Registry): (event: GuardEvent) => void {
  const deliveries = new Counter({
    name: 'webhook_deliveries_total',
    help: 'Webhook deliveries, by provider and outcome',
    labelNames: ['provider', 'outcome'] as const,
    registers: [registry],
  });
  const handlerSeconds = new Histogram({
    name: 'webhook_handler_duration_seconds',
    help: 'How long webhook handlers ran',
    labelNames: ['provider', 'outcome'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [registry],
  });
  const takeovers = new Counter({
    name: 'webhook_claims_taken_over_total',
    help: 'Processing claims older than staleAfterSeconds taken over (their worker died)',
    labelNames: ['provider'] as const,
    registers: [registry],
  });

  return function recordPrometheus(event: GuardEvent): void {
    if (event.type === 'retried' && event.stale) takeovers.inc({ provider: event.key.provider });
    if (event.type !== 'delivered') return;
    const labels = { provider: event.key.provider, outcome: event.outcome };
    deliveries.inc(labels);
    if (event.handlerMs !== undefined) handlerSeconds.observe(labels, event.handlerMs / 1000);
  };
}
// #endregion prometheus
