/**
 * @module The inbox's backlog as observable gauges: one bounded, index-served read
 * (`InboxStore.backlog`) for every provider and all three gauges, at most once per
 * `minReadIntervalMs` however many readers collect. The gauges' builder (the throttled read and the
 * batch observation) serves the outbox's gauges too (outbox-telemetry.ts): its table is an
 * inbox-shaped table.
 */
import { type BatchObservableResult, type MeterProvider, metrics } from '@opentelemetry/api';
import type {
  BacklogInput,
  InboxBacklog,
  InboxStore,
  ProviderBacklog,
} from '@webhook-idempotency/core/inbox';
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

/** How often a backlog is read, and where a failed read goes. */
export interface BacklogReading {
  readonly minReadIntervalMs?: number;
  readonly onError?: (error: unknown) => void;
}

/**
 * Reads `store`'s backlog (with `input`) at most once per `minReadIntervalMs` (the last read in
 * between), one read at a time however many collections ask; a failed read goes to `onError` and
 * gives `undefined`.
 */
function throttledBacklog(
  store: Pick<InboxStore, 'backlog'>,
  input: BacklogInput,
  { minReadIntervalMs = 15_000, onError }: BacklogReading,
): () => Promise<InboxBacklog | undefined> {
  let last: { at: number; backlog: InboxBacklog } | undefined;
  let reading: Promise<InboxBacklog | undefined> | undefined;
  return () => {
    if (last && performance.now() - last.at < minReadIntervalMs)
      return Promise.resolve(last.backlog);
    reading ??= store
      .backlog(input)
      .then(
        (backlog) => {
          last = { at: performance.now(), backlog };
          return backlog;
        },
        (error: unknown) => {
          onError?.(error);
          return undefined;
        },
      )
      .finally(() => {
        reading = undefined;
      });
    return reading;
  };
}

/** A backlog gauge: its name, unit and description, and its value from one provider's (or sender's) backlog (`undefined` once it has none). */
export interface BacklogGauge {
  readonly name: string;
  readonly unit: string;
  readonly description: string;
  readonly value: (entry: ProviderBacklog | undefined) => number;
}

/** The count of a backlog's unfinished rows (pending or being handled), as a gauge named `name`. */
export const unfinishedGauge = (name: string, unit: string, description: string): BacklogGauge => ({
  name,
  unit,
  description,
  value: (entry) => entry?.unfinished ?? 0,
});

/** The age in seconds of a backlog's oldest unfinished row, as a gauge named `name`. */
export const oldestAgeGauge = (name: string, description: string): BacklogGauge => ({
  name,
  unit: 's',
  description,
  value: (entry) => (entry?.oldestAgeMs ?? 0) / 1000,
});

/**
 * Creates `gauges` and observes them from `store`'s backlog (read with `input`, throttled as
 * `options` says), one point per provider (the backlog's `provider`: for the outbox, the sender)
 * under `attribute`. A name seen once keeps being reported (0 once its backlog is gone). Returns
 * what stops it.
 */
export function observeBacklogGauges(
  store: Pick<InboxStore, 'backlog'>,
  input: BacklogInput,
  options: BacklogReading & { readonly meterProvider?: MeterProvider },
  attribute: string,
  gauges: readonly BacklogGauge[],
): () => void {
  const meter = (options.meterProvider ?? metrics.getMeterProvider()).getMeter(
    INSTRUMENTATION_NAME,
  );
  const observed = gauges.map(
    ({ name, unit, description, value }) =>
      [meter.createObservableGauge(name, { unit, description }), value] as const,
  );
  const read = throttledBacklog(store, input, options);
  const instruments = observed.map(([gauge]) => gauge);
  const seen = new Set<string>();
  const observe = async (result: BatchObservableResult): Promise<void> => {
    const backlog = await read();
    if (!backlog) return;
    for (const p of backlog.providers) seen.add(p.provider);
    for (const name of seen) {
      const entry = backlog.providers.find((p) => p.provider === name);
      for (const [gauge, value] of observed)
        result.observe(gauge, value(entry), { [attribute]: name });
    }
  };
  meter.addBatchObservableCallback(observe, instruments);
  return () => meter.removeBatchObservableCallback(observe, instruments);
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
  const { stuckAfterMs = 300_000, stuckAfterMsByProvider } = options;
  const input = { stuckAfterMs, ...(stuckAfterMsByProvider ? { stuckAfterMsByProvider } : {}) };
  const close = observeBacklogGauges(inbox, input, options, AttributeName.PROVIDER, [
    unfinishedGauge(
      MetricName.UNFINISHED,
      '{delivery}',
      'Inbox deliveries not finished yet (pending or processing)',
    ),
    {
      name: MetricName.STUCK,
      unit: '{delivery}',
      description:
        "Unfinished inbox deliveries received longer ago than their provider's threshold",
      value: (p) => p?.stuck ?? 0,
    },
    oldestAgeGauge(MetricName.OLDEST_AGE, 'Age of the oldest unfinished inbox delivery'),
  ]);
  return { close };
}
