/**
 * What an application uses: the guard, keys, errors, the in-memory store, provider presets and
 * the types an app writes against. Adapter and store authors: `@webhook-idempotency/core/adapter`.
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
  type StoreKind,
  TransactionClosed,
} from './errors';
export { type ExternalId, type KeyLike, RequestKey } from './request-key';
export {
  type Claim,
  type GuardOptions,
  type Handler,
  IdempotencyGuard,
  type Replay,
  type RunOptions,
} from './guard';
export type { ClaimTicket, OpenTransaction } from './ticket';
export { InMemoryStore, type InMemoryStoreOptions } from './memory-store';
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
export type { InboxOptions, InboxResponse } from './inbox/accept';
export {
  createInboxWorker,
  type InboxHandler,
  type InboxWorker,
  type InboxWorkerOptions,
  retryDelayMs,
} from './inbox/worker';
export {
  createInboxRelay,
  type HandoffState,
  type InboxRelay,
  type InboxRelayOptions,
  jobIdOf,
  type QueuedDelivery,
} from './inbox/relay';
export {
  type ConsumeOutcome,
  createInboxConsumer,
  type InboxConsumer,
  type InboxConsumerOptions,
  InvalidJobData,
  queuedDeliveryOf,
} from './inbox/consumer';
export {
  type Delivery,
  type BatchEntry,
  type DeliveryBatcher,
  type DeliveryRef,
  type DeliveryLease,
  DeliveryStatus,
  type DeliverySummary,
  type InboxEvent,
  type InboxStore,
  type LeasedRef,
  type NewDelivery,
  type StoredDelivery,
} from './inbox/types';
export * as providers from './providers';
export { RequestPolicy } from './http/constants';
export { canonicalJson, defaultFingerprint, sha256Hex } from './http/fingerprint';
export type { RequestIdempotency } from './http/engine';
export type { IdempotencyOptions } from './http/options';
export type { HttpHeaders, HttpRequest, HttpResponseRecord, ProviderPreset } from './http/types';
