/**
 * @module The inbox's backlog as observable gauges: one bounded, index-served read
 * (`InboxStore.backlog`) for every provider and all three gauges, at most once per
 * `minReadIntervalMs` however many readers collect.
 */
import {
  type BatchObservableResult,
  type Meter,
  type MeterProvider,
  metrics,
} from '@opentelemetry/api';
import type { InboxBacklog, InboxStore } from '@webhook-idempotency/core/inbox';
import { AttributeName, INSTRUMENTATION_NAME, MetricName } from './telemetry';

/** Options of {@link observeInbox}. Every one is optional. */
export interface InboxGaugeOptions {
  /** How long after its receipt an unfinished delivery counts as stuck. Defaults to 5 minutes. */
  stuckAfterMs?: number;
  /** The same per provider (`{ shopify: 900_000 }`); the others take `stuckAfterMs`. */
  stuckAfterMsByProvider?: Readonly<Record<string, number>>;
  /** Collections closer together than this report the last read instead of reading again. Defaults to 15 000. */
  minReadIntervalMs?: number;
  /** Where the gauges go. Defaults to the global meter provider of `@opentelemetry/api`. */
  meterProvider?: MeterProvider;
  /** A failed read: the collection reports nothing for the gauges. Defaults to ignoring it. */
  onError?: (error: unknown) => void;
}

/** What {@link observeInbox} returns. */
export interface InboxGauges {
  /** Stops reporting the gauges (and reading the inbox). */
  close(): void;
}

/** The three gauges, each read per provider. */
function backlogGauges(meter: Meter) {
  return {
    unfinished: meter.createObservableGauge(MetricName.UNFINISHED, {
      unit: '{delivery}',
      description: 'Inbox deliveries not finished yet (pending or processing)',
    }),
    stuck: meter.createObservableGauge(MetricName.STUCK, {
      unit: '{delivery}',
      description:
        "Unfinished inbox deliveries received longer ago than their provider's threshold",
    }),
    oldest: meter.createObservableGauge(MetricName.OLDEST_AGE, {
      unit: 's',
      description: 'Age of the oldest unfinished inbox delivery',
    }),
  };
}

/**
 * Reads `inbox`'s backlog at most once per `minReadIntervalMs` (the last read in between), one
 * read at a time however many collections ask; a failed read goes to `onError` and gives `undefined`.
 */
function throttledBacklog(
  inbox: Pick<InboxStore, 'backlog'>,
  options: InboxGaugeOptions,
): () => Promise<InboxBacklog | undefined> {
  const { stuckAfterMs = 300_000, stuckAfterMsByProvider, minReadIntervalMs = 15_000 } = options;
  let last: { at: number; backlog: InboxBacklog } | undefined;
  let reading: Promise<InboxBacklog | undefined> | undefined;
  return () => {
    if (last && performance.now() - last.at < minReadIntervalMs)
      return Promise.resolve(last.backlog);
    reading ??= inbox
      .backlog({ stuckAfterMs, ...(stuckAfterMsByProvider ? { stuckAfterMsByProvider } : {}) })
      .then(
        (backlog) => {
          last = { at: performance.now(), backlog };
          return backlog;
        },
        (error: unknown) => {
          options.onError?.(error);
          return undefined;
        },
      )
      .finally(() => {
        reading = undefined;
      });
    return reading;
  };
}

/**
 * Reports `webhook.inbox.delivery.unfinished`, `webhook.inbox.delivery.stuck` and
 * `webhook.inbox.delivery.oldest_age` per provider, read from `inbox` when a metric reader
 * collects. A provider seen once keeps being reported (0 once its backlog is gone).
 *
 * @example
 * const gauges = observeInbox(new SqlInbox(pool), { stuckAfterMs: 5 * 60_000 });
 * // on shutdown: gauges.close();
 * @see docs/observability.md
 */
export function observeInbox(
  inbox: Pick<InboxStore, 'backlog'>,
  options: InboxGaugeOptions = {},
): InboxGauges {
  const meter = (options.meterProvider ?? metrics.getMeterProvider()).getMeter(
    INSTRUMENTATION_NAME,
  );
  const { unfinished, stuck, oldest } = backlogGauges(meter);
  const read = throttledBacklog(inbox, options);
  const seen = new Set<string>();
  const observe = async (result: BatchObservableResult): Promise<void> => {
    const backlog = await read();
    if (!backlog) return;
    for (const p of backlog.providers) seen.add(p.provider);
    for (const provider of seen) {
      const p = backlog.providers.find((entry) => entry.provider === provider);
      const attributes = { [AttributeName.PROVIDER]: provider };
      result.observe(unfinished, p?.unfinished ?? 0, attributes);
      result.observe(stuck, p?.stuck ?? 0, attributes);
      result.observe(oldest, (p?.oldestAgeMs ?? 0) / 1000, attributes);
    }
  };
  meter.addBatchObservableCallback(observe, [unfinished, stuck, oldest]);
  return {
    close() {
      meter.removeBatchObservableCallback(observe, [unfinished, stuck, oldest]);
    },
  };
}
