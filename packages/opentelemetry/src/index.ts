/**
 * OpenTelemetry for webhook-idempotency: a span per delivery, delivery, answer-time, handler,
 * failure and takeover metrics from the guard's and the inbox's events, the outbox dispatcher's
 * sends, retries and dead messages, and the inbox's and the outbox's backlogs as gauges, with
 * `@opentelemetry/api` only.
 * @module @webhook-idempotency/opentelemetry
 */
export { type InboxGaugeOptions, type InboxGauges, observeInbox } from './inbox-gauges';
export {
  type OutboxGaugeOptions,
  type OutboxGauges,
  observeOutbox,
  outboxTelemetryListener,
} from './outbox-telemetry';
export { inboxTelemetryListener } from './inbox-telemetry';
export { instrument, type WithOnEvent } from './instrument';
export {
  AttributeName,
  INSTRUMENTATION_NAME,
  MetricName,
  type TelemetryOptions,
  telemetryListener,
} from './telemetry';
