/** @module Inbox events (the endpoint's, the worker's, a queue consumer's) as OpenTelemetry metrics. */
import type { InboxEvent } from '@webhook-idempotency/core/inbox';
import {
  AttributeName,
  createInstruments,
  lazyInstruments,
  type TelemetryOptions,
} from './telemetry';

/**
 * An inbox event listener for the endpoint's `inbox(…)`, the worker and the queue consumers:
 * `webhook.answer.duration` from each `answered` event (the endpoint's time to store and answer),
 * `webhook.inbox.refusals` from those refused over the backlog budget (outcome `backpressure`),
 * `webhook.failures` from `retry`, `failed` and `dead` (each a failed attempt), and
 * `webhook.inbox.dead_letters` from `dead`. Pass it as their `onEvent`, or let `instrument()` do it.
 *
 * @example
 * const worker = createInboxWorker({ inbox, store, handlers, onEvent: inboxTelemetryListener() });
 * @see docs/observability.md
 */
export function inboxTelemetryListener(
  options: Pick<TelemetryOptions, 'meterProvider'> = {},
): (event: InboxEvent) => void {
  const metricsOf = lazyInstruments(createInstruments, options);
  return function recordInboxTelemetry(event: InboxEvent): void {
    switch (event.type) {
      case 'answered':
        metricsOf().answerDuration.record(event.durationMs / 1000, {
          [AttributeName.PROVIDER]: event.provider,
          [AttributeName.OUTCOME]: event.outcome,
          [AttributeName.HTTP_STATUS]: event.status,
        });
        if (event.outcome === 'backpressure')
          metricsOf().refused.add(1, {
            [AttributeName.PROVIDER]: event.provider,
            [AttributeName.HTTP_STATUS]: event.status,
          });
        return;
      case 'retry':
      case 'failed':
        metricsOf().failures.add(1, { [AttributeName.PROVIDER]: event.delivery.provider });
        return;
      case 'dead': {
        const provider = { [AttributeName.PROVIDER]: event.delivery.provider };
        metricsOf().failures.add(1, provider);
        metricsOf().deadLetters.add(1, provider);
        return;
      }
      default:
        return;
    }
  };
}
