/**
 * @module The outbox as OpenTelemetry metrics: the dispatcher's events as counters by sender
 * (`outboxTelemetryListener`), and the outbox table's backlog as gauges by sender
 * (`observeOutbox`), read through the store's `backlog()` as the inbox's are.
 */
import type { Counter, MeterProvider } from '@opentelemetry/api';
import type { InboxStore } from '@webhook-idempotency/core/inbox';
import type { OutboxEvent } from '@webhook-idempotency/core/outbox';
import { observeBacklogGauges, oldestAgeGauge, unfinishedGauge } from './inbox-gauges';
import {
  AttributeName,
  INSTRUMENTATION_NAME,
  lazyInstruments,
  MetricName,
  type TelemetryOptions,
} from './telemetry';

/** The dispatcher's counters. */
interface OutboxInstruments {
  readonly sent: Counter;
  readonly retries: Counter;
  readonly dead: Counter;
}

function createOutboxInstruments(provider: MeterProvider): OutboxInstruments {
  const meter = provider.getMeter(INSTRUMENTATION_NAME);
  return {
    sent: meter.createCounter(MetricName.OUTBOX_SENT, {
      unit: '{message}',
      description: 'Outbox messages sent: their sender reported them accepted',
    }),
    retries: meter.createCounter(MetricName.OUTBOX_RETRIES, {
      unit: '{attempt}',
      description: 'Outbox send attempts that failed and will be tried again after a backoff',
    }),
    dead: meter.createCounter(MetricName.OUTBOX_DEAD, {
      unit: '{message}',
      description:
        'Outbox messages that died: refused for good by their receiver, or failed every allowed attempt',
    }),
  };
}

/**
 * An outbox event listener for the dispatcher (`createOutboxDispatcher({ onEvent })`):
 * `webhook.outbox.sent` from each `sent`, `webhook.outbox.retries` from
 * each `retry` and `webhook.outbox.dead` from each `dead`, each by `sender`. Pass it
 * as the dispatcher's `onEvent`, or let `instrument()` do it.
 *
 * @example
 * const dispatcher = createOutboxDispatcher({ outbox, senders, onEvent: outboxTelemetryListener() });
 * @see docs/observability.md
 */
export function outboxTelemetryListener(
  options: Pick<TelemetryOptions, 'meterProvider'> = {},
): (event: OutboxEvent) => void {
  const metricsOf = lazyInstruments(createOutboxInstruments, options);
  return function recordOutboxTelemetry(event: OutboxEvent): void {
    if (event.type !== 'sent' && event.type !== 'retry' && event.type !== 'dead') return;
    const counter = { sent: 'sent', retry: 'retries', dead: 'dead' } as const;
    metricsOf()[counter[event.type]].add(1, { [AttributeName.SENDER]: event.message.sender });
  };
}

/** Options of {@link observeOutbox}. Every one is optional. */
export interface OutboxGaugeOptions {
  /**
   * The window of `webhook.outbox.recently_dead`: messages that died within this many
   * milliseconds. Defaults to 15 minutes.
   */
  deadWithinMs?: number;
  /** Collections closer together than this report the last read instead of reading again. Defaults to 15 000. */
  minReadIntervalMs?: number;
  /** Where the gauges go. Defaults to the global meter provider of `@opentelemetry/api`. */
  meterProvider?: MeterProvider;
  /** A failed read: the collection reports nothing for the gauges. Defaults to ignoring it. */
  onError?: (error: unknown) => void;
}

/** What {@link observeOutbox} returns. */
export interface OutboxGauges {
  /** Stops reporting the gauges (and reading the outbox). */
  close(): void;
}

/**
 * Reports `webhook.outbox.pending` (messages not sent yet: pending or being sent),
 * `webhook.outbox.oldest_pending_age` (seconds since the oldest of them was recorded)
 * and `webhook.outbox.recently_dead` (messages that died within `deadWithinMs`) per
 * sender, read from the outbox's table (its store's `backlog()`: one bounded read for every sender
 * and the three gauges) when a metric reader collects. A sender seen once keeps being reported
 * (0 once its backlog is gone).
 *
 * @example
 * const gauges = observeOutbox(new SqlOutbox(pool, { receipts: store }));
 * // on shutdown: gauges.close();
 * @see docs/observability.md
 */
export function observeOutbox(
  outbox: Pick<InboxStore, 'backlog'>,
  options: OutboxGaugeOptions = {},
): OutboxGauges {
  const { deadWithinMs = 15 * 60_000 } = options;
  // The stuck threshold is the backlog's own figure, which these gauges do not report.
  const input = { stuckAfterMs: deadWithinMs, finishedWithinMs: deadWithinMs };
  const close = observeBacklogGauges(outbox, input, options, AttributeName.SENDER, [
    unfinishedGauge(
      MetricName.OUTBOX_PENDING,
      '{message}',
      'Outbox messages not sent yet (pending, or being sent)',
    ),
    oldestAgeGauge(
      MetricName.OUTBOX_OLDEST_PENDING_AGE,
      'Age of the oldest outbox message not sent yet',
    ),
    {
      name: MetricName.OUTBOX_RECENTLY_DEAD,
      unit: '{message}',
      description: 'Outbox messages that died within the window (deadWithinMs)',
      value: (s) => s?.died ?? 0,
    },
  ]);
  return { close };
}
