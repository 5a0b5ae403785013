/**
 * What an application using the guard writes against: the guard, keys, errors, the in-memory
 * store and the store and HTTP option types. Inbox mode: `@webhook-idempotency/core/inbox`;
 * provider presets: `@webhook-idempotency/providers`; adapter, store and bridge authors:
 * `@webhook-idempotency/core/adapter`; conformance suites: `@webhook-idempotency/core/testing`.
 * @module @webhook-idempotency/core
 */
export {
  DAY,
  DeliveryOutcome,
  HOUR,
  MAX_KEY_LENGTH,
  MINUTE,
  ReceiptStatus,
  SECOND,
} from './constants';
export {
  ClaimLost,
  ConfigError,
  ErrorCode,
  FingerprintMismatch,
  HandlerTimeout,
  IdempotencyError,
  InvalidRequestKey,
  isIdempotencyError,
  type KeyField,
  RequestInProgress,
  StoreError,
  TransactionClosed,
} from './errors';
export { type ExternalId, type KeyLike, RequestKey } from './request-key';
export { type Claim, type Handler, IdempotencyGuard, type Replay } from './guard';
export type { GuardOptions, RunOptions } from './guard-options';
export type { ClaimTicket } from './ticket';
export type { OpenTransaction } from './open-transaction';
export { InMemoryStore, type InMemoryStoreOptions } from './memory-store';
export { requireTransaction } from './require-transaction';
export type {
  At,
  ClaimResult,
  Codec,
  GuardEvent,
  ObservedReceipt,
  Outcome,
  Receipt,
  RunContext,
  Store,
  StoreCapabilities,
  TransactionOptions,
} from './types';
export { RequestPolicy } from './http/constants';
export { defaultFingerprint } from './http/fingerprint';
export type { RequestIdempotency } from './http/engine';
export type { IdempotencyOptions } from './http/options';
export type { HttpRequest, ProviderPreset } from './http/types';
