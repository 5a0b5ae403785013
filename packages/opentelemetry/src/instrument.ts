/** @module `instrument(options)`: the same options, with an `onEvent` that also reports to OpenTelemetry. */
import { ConfigError, type GuardEvent } from '@webhook-idempotency/core';
import { type TelemetryOptions, telemetryListener } from './telemetry';

/** Anything that takes an `onEvent` listener: guard options, or adapter options with `store`. */
export interface WithOnEvent {
  onEvent?: ((event: GuardEvent) => void) | undefined;
}

/**
 * Returns a copy of `options` whose `onEvent` records spans and metrics
 * ({@link telemetryListener}) and then calls the `onEvent` you passed, so your own listener
 * (logs, another metrics library) keeps working. A listener that throws does not stop the other.
 * For adapter options, instrument the ones with `store`: with a ready `guard`, instrument the
 * guard's options instead (`new IdempotencyGuard(store, instrument({ … }))`).
 *
 * @example
 * app.post('/webhooks/stripe', express.raw({ type: 'application/json' }),
 *   idempotent(instrument({ store, preset: providers.stripe({ secret }), onEvent: log })),
 *   handler);
 * @throws {ConfigError} `options` carries a `guard` (its events are configured on the guard), or an `onEvent` that is not a function.
 * @see docs/observability.md
 */
export function instrument<O extends object>(
  options: O & WithOnEvent,
  telemetry: TelemetryOptions = {},
): O & { onEvent: (event: GuardEvent) => void } {
  if ((options as { guard?: unknown }).guard !== undefined) {
    throw new ConfigError(
      'guard',
      'has its events configured already: instrument the guard options instead, new IdempotencyGuard(store, instrument({ … }))',
    );
  }
  const own = options.onEvent;
  if (own !== undefined && typeof own !== 'function')
    throw new ConfigError('onEvent', 'must be a function');
  const record = telemetryListener(telemetry);
  const onEvent = own
    ? function instrumented(event: GuardEvent): void {
        try {
          record(event);
        } catch {
          // A telemetry failure must not keep the event from the application's own listener.
        }
        own(event);
      }
    : record;
  return { ...options, onEvent };
}
