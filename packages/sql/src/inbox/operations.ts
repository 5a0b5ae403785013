/**
 * @module The inbox repairs, moved to core's operator rules (`@webhook-idempotency/core/operations`)
 * so that every tool that repairs decides alike. Re-exported from the package root for one more
 * minor version, deprecated.
 */
import {
  type ForgetsReceipts as CoreForgetsReceipts,
  type LeftAsItIs as CoreLeftAsItIs,
  movedSince as coreMovedSince,
  type RedeliverOutcome as CoreRedeliverOutcome,
  redeliverDelivery as coreRedeliverDelivery,
  type RetryDeadOptions as CoreRetryDeadOptions,
  type RetryDeadResult as CoreRetryDeadResult,
  retryDeadDeliveries as coreRetryDeadDeliveries,
  retryDelivery as coreRetryDelivery,
  type RetryOutcome as CoreRetryOutcome,
  type SeenOption as CoreSeenOption,
} from '@webhook-idempotency/core/operations';

/** @deprecated Import `retryDelivery` from `@webhook-idempotency/core/operations`. */
export const retryDelivery = coreRetryDelivery;
/** @deprecated Import `redeliverDelivery` from `@webhook-idempotency/core/operations`. */
export const redeliverDelivery = coreRedeliverDelivery;
/** @deprecated Import `retryDeadDeliveries` from `@webhook-idempotency/core/operations`. */
export const retryDeadDeliveries = coreRetryDeadDeliveries;
/** @deprecated Import `movedSince` from `@webhook-idempotency/core/operations`. */
export const movedSince = coreMovedSince;
/** @deprecated Import `ForgetsReceipts` from `@webhook-idempotency/core/operations`. */
export type ForgetsReceipts = CoreForgetsReceipts;
/** @deprecated Import `LeftAsItIs` from `@webhook-idempotency/core/operations`. */
export type LeftAsItIs = CoreLeftAsItIs;
/** @deprecated Import `RedeliverOutcome` from `@webhook-idempotency/core/operations`. */
export type RedeliverOutcome = CoreRedeliverOutcome;
/** @deprecated Import `RetryDeadOptions` from `@webhook-idempotency/core/operations`. */
export type RetryDeadOptions = CoreRetryDeadOptions;
/** @deprecated Import `RetryDeadResult` from `@webhook-idempotency/core/operations`. */
export type RetryDeadResult = CoreRetryDeadResult;
/** @deprecated Import `RetryOutcome` from `@webhook-idempotency/core/operations`. */
export type RetryOutcome = CoreRetryOutcome;
/** @deprecated Import `SeenOption` from `@webhook-idempotency/core/operations`. */
export type SeenOption = CoreSeenOption;
