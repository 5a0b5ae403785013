/**
 * OpenTelemetry for webhook-idempotency: a span per delivery and delivery, handler-duration and
 * takeover metrics, built from the guard's events with `@opentelemetry/api` only.
 * @module @webhook-idempotency/opentelemetry
 */
export { instrument, type WithOnEvent } from './instrument';
export {
  AttributeName,
  INSTRUMENTATION_NAME,
  MetricName,
  type TelemetryOptions,
  telemetryListener,
} from './telemetry';
