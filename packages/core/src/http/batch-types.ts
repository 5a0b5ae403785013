/**
 * @module The types of batched deliveries (one request carrying several provider events: SendGrid,
 * HubSpot, Adyen, Meta): what a preset reads from the request, and what the handler gets on
 * `req.idempotency.batch` to run each item under its own receipt.
 */
import type { IdempotencyError } from '../errors';
import type { ExternalId, RequestKey } from '../request-key';
import type { Outcome, RunContext } from '../types';

/** One item of a batched delivery, as a preset's `items(request)` reads it. */
export interface PresetItem {
  /**
   * The item's id at the provider: its receipt's external id (`sg_event_id`, `eventId`,
   * `pspReference:eventCode:success`…). `undefined` when the item carries none: the whole request
   * is then refused like a delivery without a key (400, or passed through with `onMissingKey`).
   */
  readonly key: ExternalId | undefined;
  /** What the handler gets for this item: the provider's event object. */
  readonly value: unknown;
  /**
   * The item's fingerprint (a retry with another body under the same id is refused, 422). Defaults
   * to SHA-256 of the canonical JSON of `value`; a preset leaves out what a retry may change
   * (HubSpot's `attemptNumber`).
   */
  readonly fingerprint?: string;
}

/** One item of a batch, as the handler sees it on {@link DeliveryBatch.items}. */
export interface BatchItem {
  /**
   * The key its receipt has: the preset's provider and the item's id. For an item without a valid
   * id (see `refused`) only a name, `item:<index>`: no receipt has it.
   */
  readonly key: RequestKey;
  /** The provider's event object (what {@link DeliveryBatch.each} hands the handler). */
  readonly value: unknown;
  /**
   * Set when the item is refused before it runs, for a reason no redelivery changes: it carries
   * no valid id (`ERR_IDEMPOTENCY_KEY_MISSING`, `ERR_IDEMPOTENCY_KEY_INVALID`), or its id came
   * earlier in the batch with another payload. {@link DeliveryBatch.each} gives it as a
   * {@link RefusedItem}; a handler walking `items` itself should skip it.
   */
  readonly refused?: IdempotencyError;
}

/** What {@link DeliveryBatch.each} runs once per item not already done. */
export type BatchItemHandler<T, Tx> = (value: T, context: RunContext<Tx>) => unknown;

/**
 * An item {@link DeliveryBatch.each} did not run because it was refused for a reason no
 * redelivery changes: its id was first received with another payload (in an earlier delivery, or
 * earlier in this batch), `refused` being a `FingerprintMismatch`
 * (`ERR_IDEMPOTENCY_FINGERPRINT_MISMATCH`, 422), or it carries no valid id
 * (`ERR_IDEMPOTENCY_KEY_MISSING` or `ERR_IDEMPOTENCY_KEY_INVALID`, 400). Its handler did not run
 * and nothing was written for it; the other items ran, and the batch is answered with the refusal
 * whatever the handler answers, so the provider redelivers it and the redelivery refuses this
 * item again and replays the rest.
 */
export interface RefusedItem {
  /** Why the item was refused; its `code` is the one the batch is answered with. */
  readonly refused: IdempotencyError;
}

/**
 * What {@link DeliveryBatch.each} resolves with for one item: the guard's {@link Outcome} of a done
 * item (`isReplay` when it was done before), or a {@link RefusedItem}. Test `outcome.refused`.
 */
export type ItemOutcome = (Outcome<unknown> & { readonly refused?: undefined }) | RefusedItem;

/**
 * A batched delivery's items, on `req.idempotency.batch` (Express, Fastify), `ctx.state.idempotency`
 * (Koa), `c.get('idempotency')` (Hono), the fetch handler's `idempotency` or Nest's
 * `@Idempotency()`. Each item has its own receipt: `each` runs the handler for the items not done
 * yet and skips (replays) the others, so a provider that retries or re-batches a batch books each
 * of its events once (docs/providers.md#batched-deliveries).
 * @typeParam Tx the store's transaction handle: the item handler's `context.transaction` in
 *   transactional mode (take it typed with `requireTransaction(context, store)`).
 */
export interface DeliveryBatch<Tx = unknown> {
  /** The items the preset read from the request, in the request's order. */
  readonly items: readonly BatchItem[];
  /**
   * Runs `handler` for each item in order, each under its own receipt through the guard (claim,
   * transaction in transactional mode, completion, replay): an item already done is skipped and
   * its stored result returned. An id the batch repeats runs once: a repeat with the same payload
   * shares the first one's outcome (the very object), one with another payload is refused.
   *
   * Resolves with one {@link ItemOutcome} per item, in the request's order, once every item is
   * done or refused. A refused item (`outcome.refused`, its id first received with another
   * payload) does not stop the others: they run, and the batch is then answered with the refusal
   * (422) whatever the handler answers; its own receipt stays `failed`, naming the refused items.
   *
   * Rejects at the first item a retry may still get done, after the items before it were
   * recorded and without running the ones after it: with the handler's own error (let it reach the
   * framework: the batch's answer is then non-2xx and the provider retries it), or with the
   * guard's reason (another worker holds the item, the store failed, its run outlived its claim or
   * deadline), in which case the batch is answered as such (409 or 503 with `Retry-After`) whatever
   * the handler answers. Call it once per request.
   */
  each<T = unknown>(handler: BatchItemHandler<T, Tx>): Promise<readonly ItemOutcome[]>;
}

/**
 * What the route handler sees of the guard, as `req.idempotency` (Express), `request.idempotency`
 * (Fastify) or `ctx.state.idempotency` (Koa): the key, the attempt, and in transactional mode the
 * open transaction to write business rows through; for a batched preset's delivery, its items.
 */
export interface RequestIdempotency<Tx = unknown> extends RunContext<Tx> {
  /**
   * A batched preset's delivery (SendGrid, HubSpot, Adyen, Meta): its items, each run under its own
   * receipt by `batch.each`. The request's own receipt (keyed by a digest of its item ids) is not
   * transactional: `transaction` is `undefined` here, and each item's handler gets its own.
   * `undefined` for every other delivery.
   */
  readonly batch?: DeliveryBatch<Tx>;
}
