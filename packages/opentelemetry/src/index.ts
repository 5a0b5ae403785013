/**
 * OpenTelemetry for webhook-idempotency: a span per delivery, delivery, answer-time, handler,
 * failure and takeover metrics from the guard's and the inbox's events, and the inbox's backlog as
 * gauges, with `@opentelemetry/api` only.
 * @module @webhook-idempotency/opentelemetry
 */
export { type InboxGaugeOptions, type InboxGauges, observeInbox } from './inbox-gauges';
export { inboxTelemetryListener } from './inbox-telemetry';
export { instrument, type WithOnEvent } from './instrument';
export {
  AttributeName,
  INSTRUMENTATION_NAME,
  MetricName,
  type TelemetryOptions,
  telemetryListener,
} from './telemetry';
