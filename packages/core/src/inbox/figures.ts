/** @module The inbox's operational figures: what `InboxStore.backlog` reads and returns, and the endpoint's `answered` event. */

/** What {@link InboxStore.backlog} reads. */
export interface BacklogInput {
  /**
   * How long after it was received (`receivedAt`) a delivery that has not finished counts as
   * stuck, in milliseconds: what "normal" is for your providers (the worker's poll, a few retries).
   */
  readonly stuckAfterMs: number;
  /** The same threshold for some providers, by provider name; the others take `stuckAfterMs`. */
  readonly stuckAfterMsByProvider?: Readonly<Record<string, number>>;
  /**
   * Also reads the deliveries that finished (`done` or `dead`) in the last `finishedWithinMs`
   * milliseconds: how many, how many died, how many finished later than their threshold after
   * their receipt. Without it only the unfinished ones are read.
   */
  readonly finishedWithinMs?: number;
  /**
   * The most rows each part reads: the oldest unfinished deliveries, and the most recently
   * finished ones. Defaults to 10 000; at most 100 000.
   */
  readonly limit?: number;
}

/** One provider's figures in an {@link InboxBacklog}. */
export interface ProviderBacklog {
  readonly provider: string;
  /** Deliveries not finished yet: `pending` (waiting, or in a retry's backoff) or `processing`. */
  readonly unfinished: number;
  /** Of those, the ones received at least the provider's threshold ago. */
  readonly stuck: number;
  /** How long ago (the store's clock) the oldest unfinished one was received; `null` when none is. */
  readonly oldestAgeMs: number | null;
  /** Deliveries that finished within `finishedWithinMs` (0 without it). */
  readonly finished: number;
  /** Of those, the ones that died (`dead`: their failures ran out). */
  readonly died: number;
  /** Of those, the ones that finished later than the provider's threshold after their receipt. */
  readonly late: number;
}

/** What {@link InboxStore.backlog} resolves with. */
export interface InboxBacklog {
  /** One entry per provider with an unfinished delivery or one finished in the window, by provider name. */
  readonly providers: readonly ProviderBacklog[];
  /**
   * `false` when a part read its `limit` of rows: the counts are then lower bounds (they cover the
   * oldest unfinished deliveries, which are the stuck ones, and the most recently finished).
   */
  readonly complete: boolean;
}

/**
 * The inbox endpoint answered a delivery with a valid key: once per such request, after `stored`,
 * `duplicate` or the `store-error` of its enqueue, or refused it unstored because its provider's
 * backlog is over budget (`backpressure`: 503 or 429 with `Retry-After`). `durationMs`: from the
 * endpoint's call (verification included) to the answer decided, before it is sent; `status`:
 * that answer's.
 */
export interface AnsweredEvent {
  readonly type: 'answered';
  readonly provider: string;
  readonly externalId: string;
  readonly outcome: 'stored' | 'duplicate' | 'store_error' | 'backpressure';
  readonly status: number;
  readonly durationMs: number;
}

/**
 * The inbox endpoint started refusing a provider's new deliveries (its backlog passed a budget of
 * `inbox({ backpressure })`), or stopped (the backlog fell back to `resumeAt` of every budget).
 * Reported once per change, from the backlog read that saw it.
 */
export interface BackpressureEvent {
  readonly type: 'backpressure';
  readonly state: 'started' | 'ended';
  readonly provider: string;
  /** The provider's unfinished deliveries in that read (a lower bound when the read was cut at its limit). */
  readonly unfinished: number;
  /** How long ago its oldest unfinished delivery was received; `null` when none is. */
  readonly oldestAgeMs: number | null;
  /** The `Retry-After` seconds its refusals carry; `null` when it ended. */
  readonly retryAfterSeconds: number | null;
}

/**
 * What the inbox endpoint reports besides `stored`, `duplicate` and `store-error`: each answer to a
 * delivery with a key, and each start and end of a provider's refusals. The endpoint's backlog
 * read (`store-error` with `operation: 'backlog'`) and its duplicate check while refusing
 * (`operation: 'find'`) fail without changing what it answers.
 */
export type EndpointEvent = AnsweredEvent | BackpressureEvent;
