/** @module `instrument(options)`: the same options, with an `onEvent` that also reports to OpenTelemetry. */
import { ConfigError, type GuardEvent } from '@webhook-idempotency/core';
import type { InboxEvent } from '@webhook-idempotency/core/inbox';
import type { OutboxEvent } from '@webhook-idempotency/core/outbox';
import { inboxTelemetryListener } from './inbox-telemetry';
import { outboxTelemetryListener } from './outbox-telemetry';
import { type TelemetryOptions, telemetryListener } from './telemetry';

/** Anything that takes an `onEvent` listener: guard options, or adapter options with `store`. */
export interface WithOnEvent {
  onEvent?: ((event: GuardEvent) => void) | undefined;
}

/** Inbox options: the endpoint's `inbox(…)`, the worker's and a queue consumer's (they carry `inbox`). */
interface WithInbox {
  inbox: unknown;
  onEvent?: ((event: InboxEvent) => void) | undefined;
}

/** The outbox dispatcher's options (they carry `outbox` and `senders`). */
interface WithOutbox {
  outbox: unknown;
  senders: unknown;
  onEvent?: ((event: OutboxEvent) => void) | undefined;
}

/** `record`, then the application's own listener: a telemetry failure never keeps an event from it. */
function chained<E>(record: (event: E) => void, own: ((event: E) => void) | undefined) {
  if (own !== undefined && typeof own !== 'function')
    throw new ConfigError('onEvent', 'must be a function');
  if (!own) return record;
  return function instrumented(event: E): void {
    try {
      record(event);
    } catch {
      // A telemetry failure must not keep the event from the application's own listener.
    }
    own(event);
  };
}

/**
 * Returns a copy of `options` whose `onEvent` records spans and metrics and then calls the
 * `onEvent` you passed, so your own listener (logs, another metrics library) keeps working. A
 * listener that throws does not stop the other. Guard and adapter options get
 * {@link telemetryListener}; options with `inbox` (the inbox endpoint's, the worker's, a queue
 * consumer's) get {@link inboxTelemetryListener}; the outbox dispatcher's (with `outbox` and
 * `senders`) get {@link outboxTelemetryListener}. For adapter options, instrument the ones with
 * `store`: with a ready `guard`, instrument the guard's options instead
 * (`new IdempotencyGuard(store, instrument({ … }))`).
 *
 * @example
 * app.post('/webhooks/stripe', express.raw({ type: 'application/json' }),
 *   idempotent(instrument({ store, preset: providers.stripe({ secret }), onEvent: log })),
 *   handler);
 * app.post('/webhooks/github', express.raw({ type: '*\/*' }), inbox(instrument({ inbox: deliveries, preset })));
 * const dispatcher = createOutboxDispatcher(instrument({ outbox, senders: { http: httpSender() } }));
 * @throws {ConfigError} guard options carry a `guard` (its events are configured on the guard), or `onEvent` is not a function.
 * @see docs/observability.md
 */
export function instrument<O extends WithOutbox>(
  options: O,
  telemetry?: TelemetryOptions,
): O & { onEvent: (event: OutboxEvent) => void };
export function instrument<O extends WithInbox>(
  options: O,
  telemetry?: TelemetryOptions,
): O & { onEvent: (event: InboxEvent) => void };
export function instrument<O extends object>(
  options: O & WithOnEvent,
  telemetry?: TelemetryOptions,
): O & { onEvent: (event: GuardEvent) => void };
export function instrument(
  options: WithOnEvent | WithInbox | WithOutbox,
  telemetry: TelemetryOptions = {},
): object {
  if ('senders' in options && 'outbox' in options && options.outbox !== undefined) {
    const { onEvent } = options as WithOutbox;
    return { ...options, onEvent: chained(outboxTelemetryListener(telemetry), onEvent) };
  }
  if ('inbox' in options && options.inbox !== undefined) {
    const { onEvent } = options as WithInbox;
    return { ...options, onEvent: chained(inboxTelemetryListener(telemetry), onEvent) };
  }
  if ((options as { guard?: unknown }).guard !== undefined) {
    throw new ConfigError(
      'guard',
      'has its events configured already: instrument the guard options instead, new IdempotencyGuard(store, instrument({ … }))',
    );
  }
  const { onEvent } = options as WithOnEvent;
  return { ...options, onEvent: chained(telemetryListener(telemetry), onEvent) };
}
