/** @module Guard events as OpenTelemetry spans and metrics, through `@opentelemetry/api` only. */
import {
  type Attributes,
  type Counter,
  type Histogram,
  type Meter,
  type MeterProvider,
  metrics,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  type TracerProvider,
  trace,
} from '@opentelemetry/api';
import type { GuardEvent } from '@webhook-idempotency/core';

type DeliveredEvent = Extract<GuardEvent, { type: 'delivered' }>;

/** The instrumentation scope every span and instrument is created under. */
export const INSTRUMENTATION_NAME = '@webhook-idempotency/opentelemetry';

/** Metric names, as exported (Prometheus turns the dots into underscores and adds `_total`, `_seconds`). */
export const MetricName = {
  /**
   * Counter: deliveries by `webhook.provider` × `webhook.outcome` (a route set's answers before any
   * claim too: `ignored`, `refused`).
   */
  DELIVERIES: 'webhook.deliveries',
  /** Histogram, seconds: the handler's run, by `webhook.provider` × `webhook.outcome` (`first`, `failed`, …). */
  HANDLER_DURATION: 'webhook.handler.duration',
  /** Histogram, seconds: the whole delivery, by `webhook.provider` × `webhook.outcome`. */
  DELIVERY_DURATION: 'webhook.delivery.duration',
  /** Counter: `processing` claims older than `staleAfterSeconds` taken over (a worker died), by `webhook.provider`. */
  STALE_TAKEOVERS: 'webhook.claims.taken_over',
  /**
   * Histogram, seconds: how long the endpoint took to answer the provider (a guarded delivery, or
   * the inbox endpoint's store), by `webhook.provider` × `webhook.outcome` × `http.response.status_code`.
   */
  ANSWER_DURATION: 'webhook.answer.duration',
  /** Counter: handler failures (a guarded run, an inbox attempt, a queue job), by `webhook.provider`. */
  FAILURES: 'webhook.failures',
  /** Counter: inbox deliveries that died (their failures ran out), by `webhook.provider`. */
  DEAD_LETTERS: 'webhook.inbox.dead_letters',
  /**
   * Counter: deliveries the inbox endpoint refused unstored because their provider's backlog was
   * over the `backpressure` budget, by `webhook.provider` × `http.response.status_code` (503 or 429).
   */
  REFUSALS: 'webhook.inbox.refusals',
  /** Gauge: inbox deliveries not finished yet (pending or processing), by `webhook.provider` (`observeInbox`). */
  UNFINISHED: 'webhook.inbox.delivery.unfinished',
  /** Gauge: of those, the ones received longer ago than the provider's threshold, by `webhook.provider`. */
  STUCK: 'webhook.inbox.delivery.stuck',
  /** Gauge, seconds: the age of the oldest unfinished delivery, by `webhook.provider`. */
  OLDEST_AGE: 'webhook.inbox.delivery.oldest_age',
  /** Counter: outbox messages sent (their sender resolved), by `sender` (`outboxTelemetryListener`). */
  OUTBOX_SENT: 'webhook.outbox.sent',
  /** Counter: failed send attempts of outbox messages, each tried again after a backoff, by `sender`. */
  OUTBOX_RETRIES: 'webhook.outbox.retries',
  /**
   * Counter: outbox messages that died (a `PermanentSendFailure`, or their failures ran out), by
   * `sender`.
   */
  OUTBOX_DEAD: 'webhook.outbox.dead',
  /** Gauge: outbox messages not sent yet (pending, or being sent), by `sender` (`observeOutbox`). */
  OUTBOX_PENDING: 'webhook.outbox.pending',
  /** Gauge, seconds: the age of the oldest outbox message not sent yet, by `sender`. */
  OUTBOX_OLDEST_PENDING_AGE: 'webhook.outbox.oldest_pending_age',
  /** Gauge: outbox messages that died within `observeOutbox`'s `deadWithinMs`, by `sender`. */
  OUTBOX_RECENTLY_DEAD: 'webhook.outbox.recently_dead',
} as const;

/** Attribute names on spans and metric points. */
export const AttributeName = {
  PROVIDER: 'webhook.provider',
  EVENT_ID: 'webhook.event_id',
  OUTCOME: 'webhook.outcome',
  ATTEMPTS: 'webhook.attempts',
  /** OpenTelemetry's own name for the answer's status; set when the HTTP engine knows it. */
  HTTP_STATUS: 'http.response.status_code',
  /** The outbox metrics' attribute: the sender's name (`http`, `email`, one you plug). */
  SENDER: 'webhook.sender',
} as const;

/** Bucket boundaries, in seconds, for the two duration histograms: webhook handlers run for milliseconds to minutes. */
const DURATION_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300,
];
/** Bucket boundaries, in seconds, for the answer time: tens of milliseconds when healthy, a provider's timeout at worst. */
const ANSWER_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** The instruments of one listener. */
export interface Instruments {
  readonly deliveries: Counter;
  readonly handlerDuration: Histogram;
  readonly deliveryDuration: Histogram;
  readonly takeovers: Counter;
  readonly answerDuration: Histogram;
  readonly failures: Counter;
  readonly deadLetters: Counter;
  readonly refused: Counter;
}

/** A counter of `unit`s (`{delivery}`, `{failure}`…). */
const counter = (meter: Meter, name: string, unit: string, description: string): Counter =>
  meter.createCounter(name, { description, unit });

/** A histogram of seconds over `buckets`. */
const seconds = (meter: Meter, name: string, buckets: number[], description: string): Histogram =>
  meter.createHistogram(name, {
    unit: 's',
    advice: { explicitBucketBoundaries: buckets },
    description,
  });

/**
 * The instruments `create` makes, made on a listener's first event: the global meter provider has
 * no proxy, so an SDK registered after the listener is made (but before traffic) is still the one
 * that gets the metrics.
 */
export function lazyInstruments<T>(
  create: (provider: MeterProvider) => T,
  options: Pick<TelemetryOptions, 'meterProvider'>,
): () => T {
  let instruments: T | undefined;
  return () => {
    instruments ??= create(options.meterProvider ?? metrics.getMeterProvider());
    return instruments;
  };
}

/** Every event instrument, created once per meter provider and listener. */
export function createInstruments(provider: MeterProvider): Instruments {
  const meter = provider.getMeter(INSTRUMENTATION_NAME);
  return {
    answerDuration: seconds(
      meter,
      MetricName.ANSWER_DURATION,
      ANSWER_BUCKETS,
      'How long the webhook endpoint took to answer the provider',
    ),
    failures: counter(meter, MetricName.FAILURES, '{failure}', 'Webhook handler failures'),
    deadLetters: counter(
      meter,
      MetricName.DEAD_LETTERS,
      '{delivery}',
      'Inbox deliveries that died: their handler failed every allowed attempt',
    ),
    refused: counter(
      meter,
      MetricName.REFUSALS,
      '{refusal}',
      'Inbox deliveries refused unstored: their provider was over its backlog budget',
    ),
    deliveries: counter(
      meter,
      MetricName.DELIVERIES,
      '{delivery}',
      'Webhook deliveries, by provider and outcome',
    ),
    handlerDuration: seconds(
      meter,
      MetricName.HANDLER_DURATION,
      DURATION_BUCKETS,
      'How long webhook handlers ran, by provider and outcome',
    ),
    deliveryDuration: seconds(
      meter,
      MetricName.DELIVERY_DURATION,
      DURATION_BUCKETS,
      'How long webhook deliveries took from the claim to the recorded answer',
    ),
    takeovers: counter(
      meter,
      MetricName.STALE_TAKEOVERS,
      '{claim}',
      'Processing claims older than staleAfterSeconds taken over (their worker died)',
    ),
  };
}

/** Options of {@link telemetryListener} and {@link instrument}. Every one is optional. */
export interface TelemetryOptions {
  /**
   * Where spans go. Defaults to the global tracer provider of `@opentelemetry/api`: spans are
   * recorded once an SDK is registered (`NodeSDK.start()`, `provider.register()`), dropped before.
   */
  tracerProvider?: TracerProvider;
  /**
   * Where metrics go. Defaults to the global meter provider of `@opentelemetry/api`, looked up at
   * the first event: register the SDK before traffic arrives.
   */
  meterProvider?: MeterProvider;
}

/**
 * A guard event listener that records a span per delivery (from each `delivered` event) and the
 * metrics in {@link MetricName}. Pass it as `onEvent`, or let {@link instrument} put it next to
 * the listener you already have. Every span is created when its delivery ends, with its start
 * moved back by the delivery's duration, as a child of the span active at that moment (the HTTP
 * server's span under auto-instrumentation).
 *
 * @example
 * const onEvent = telemetryListener();
 * const guard = new IdempotencyGuard(store, { onEvent });
 * @see docs/observability.md
 */
export function telemetryListener(options: TelemetryOptions = {}): (event: GuardEvent) => void {
  const tracer = (options.tracerProvider ?? trace.getTracerProvider()).getTracer(
    INSTRUMENTATION_NAME,
  );
  const metricsOf = lazyInstruments(createInstruments, options);

  return function recordTelemetry(event: GuardEvent): void {
    if (event.type === 'retried') {
      if (event.stale)
        metricsOf().takeovers.add(1, { [AttributeName.PROVIDER]: event.key.provider });
      return;
    }
    if (event.type === 'ignored' || event.type === 'refused') {
      countAnswerWithoutClaim(metricsOf(), event);
      return;
    }
    if (event.type === 'failed')
      metricsOf().failures.add(1, { [AttributeName.PROVIDER]: event.key.provider });
    if (event.type !== 'delivered') return;
    recordDelivery(metricsOf(), event);
    endDeliverySpan(tracer, event);
  };
}

/** A route set's answer before any claim (`ignored`, `refused`): counted as a delivery of that outcome, no span. */
function countAnswerWithoutClaim(
  instruments: Instruments,
  event: Extract<GuardEvent, { type: 'ignored' | 'refused' }>,
): void {
  const labels = {
    [AttributeName.PROVIDER]: event.provider,
    [AttributeName.OUTCOME]: event.type,
  };
  instruments.deliveries.add(1, labels);
  instruments.answerDuration.record(event.durationMs / 1000, labels);
}

/** A delivery's metrics: counted by provider and outcome, its durations (and the answer's status) recorded. */
function recordDelivery(instruments: Instruments, event: DeliveredEvent): void {
  const { key, outcome, durationMs, handlerMs, status } = event;
  const labels: Attributes = {
    [AttributeName.PROVIDER]: key.provider,
    [AttributeName.OUTCOME]: outcome,
  };
  const { deliveries, deliveryDuration, handlerDuration, answerDuration } = instruments;
  deliveries.add(1, labels);
  deliveryDuration.record(durationMs / 1000, labels);
  if (handlerMs !== undefined) handlerDuration.record(handlerMs / 1000, labels);
  answerDuration.record(
    durationMs / 1000,
    status === undefined ? labels : { ...labels, [AttributeName.HTTP_STATUS]: status },
  );
}

/**
 * A delivery's span, created now that it ended, its start moved back by its duration: an error
 * for a failed run or a store error.
 */
function endDeliverySpan(tracer: Tracer, event: DeliveredEvent): void {
  const { key, outcome, attempts, durationMs, status } = event;
  const endTime = performance.timeOrigin + performance.now();
  const attributes: Attributes = {
    [AttributeName.PROVIDER]: key.provider,
    [AttributeName.OUTCOME]: outcome,
    [AttributeName.EVENT_ID]: key.externalId,
    [AttributeName.ATTEMPTS]: attempts,
  };
  if (status !== undefined) attributes[AttributeName.HTTP_STATUS] = status;
  const span = tracer.startSpan(`webhook ${key.provider}`, {
    kind: SpanKind.INTERNAL,
    startTime: endTime - durationMs,
    attributes,
  });
  if (outcome === 'failed' || outcome === 'store_error')
    span.setStatus({ code: SpanStatusCode.ERROR, message: outcome });
  span.end(endTime);
}
