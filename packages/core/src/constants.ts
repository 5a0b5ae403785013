/** @module Named constants: receipt statuses, time units, limits and defaults. */

/** One second, in milliseconds. */
export const SECOND = 1000;
/** One minute, in milliseconds. */
export const MINUTE = 60 * SECOND;
/** One hour, in milliseconds. */
export const HOUR = 60 * MINUTE;
/** One day, in milliseconds. */
export const DAY = 24 * HOUR;

/** Where a receipt is in its lifecycle. */
export const ReceiptStatus = {
  /** A worker claimed the delivery and is running the handler. */
  PROCESSING: 'processing',
  /** The handler returned; the stored response is final and replayed to every duplicate. */
  COMPLETED: 'completed',
  /** The handler threw; the next delivery runs it again. */
  FAILED: 'failed',
} as const;
/** One of {@link ReceiptStatus}. */
export type ReceiptStatus = (typeof ReceiptStatus)[keyof typeof ReceiptStatus];

/** Longest provider name or external id, in characters (Unicode code points). */
export const MAX_KEY_LENGTH = 160;
/** Longest provider name or external id in UTF-8 bytes: what a utf8mb4 VARCHAR(160) index holds. */
export const MAX_KEY_BYTES = MAX_KEY_LENGTH * 4;
/** Longest error text kept on a failed receipt. */
export const MAX_ERROR_LENGTH = 1000;

/** Longest fingerprint a store keeps (the column is 64 characters: a SHA-256 in hex); longer ones are hashed. */
export const MAX_FINGERPRINT_LENGTH = 64;

/** Default age after which a `processing` claim is considered abandoned. */
export const DEFAULT_STALE_AFTER_SECONDS = 300;
/** Default number of rows a store deletes per statement when purging (a chunk). */
export const DEFAULT_PURGE_CHUNK_SIZE = 1000;
/** @deprecated Use `DEFAULT_PURGE_CHUNK_SIZE`. */
export const DEFAULT_PURGE_BATCH_SIZE = DEFAULT_PURGE_CHUNK_SIZE;

/** How one delivery ended, as the `delivered` event reports it (docs/observability.md). */
export const DeliveryOutcome = {
  /** The handler ran and its result was recorded (a first delivery, or a retry that succeeded). */
  FIRST: 'first',
  /** A duplicate of a completed delivery: answered with the stored result, the handler did not run. */
  REPLAY: 'replay',
  /** Another worker holds the claim (409 while in flight), or this run lost its claim to a takeover. */
  CONFLICT: 'conflict',
  /** The id arrived again with another body (422). */
  MISMATCH: 'mismatch',
  /** The handler threw, answered non-2xx or outlived its deadline; the receipt is `failed`. */
  FAILED: 'failed',
  /** The store failed, before the handler ran or while recording its result (503). */
  STORE_ERROR: 'store_error',
} as const;
/** One of {@link DeliveryOutcome}. */
export type DeliveryOutcome = (typeof DeliveryOutcome)[keyof typeof DeliveryOutcome];
