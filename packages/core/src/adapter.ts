/**
 * What framework adapters, stores and queue bridges are built from: the HTTP engine, the two
 * transports an adapter translates to (the held response over node:http, the Web-standard
 * `Request`/`Response` layer), body helpers, option merging, the limits a store honours, the types
 * of batched deliveries (what a preset's `items` returns, `idempotency.batch`), the inputs of the
 * Store contract's methods (for store authors), the inbox
 * endpoint's engine and the relay and consumer a queue bridge wraps. Applications import from the
 * package root (and `/inbox`) instead.
 * @module @webhook-idempotency/core/adapter
 */
export {
  DEFAULT_PURGE_BATCH_SIZE,
  DEFAULT_PURGE_CHUNK_SIZE,
  DEFAULT_STALE_AFTER_SECONDS,
  MAX_ERROR_LENGTH,
  MAX_FINGERPRINT_LENGTH,
  MAX_KEY_BYTES,
} from './constants';
export { errorText, HTTP_STATUS_BY_CODE, type StoreKind } from './errors';
export { raceAbort } from './abort';
export { givenName, purgeChunkSize, renamedOption } from './renamed-option';
export { positiveAmount } from './positive-amount';
export { errorAnswer } from './http/answers';
export { checkKeyPart, presentExternalId } from './request-key';
export { collectBody, needsCollecting, toRawBody } from './http/body';
export { DEFAULT_MAX_REQUEST_BYTES } from './http/constants';
export {
  REQUEST_TOO_LARGE,
  readRequestBody,
  readStreamUpTo,
  requestTooLarge,
  resolveMaxRequestBytes,
} from './http/request-body';
export {
  createEngine,
  type Decision,
  type Engine,
  type PendingRun,
  responseNotCaptured,
} from './http/engine';
export { type OutgoingHeaders, replayableHeaders } from './http/headers';
export { type CapturedResponse, decodeResponse, isRecordedStatus } from './http/response-codec';
export {
  abortHeld,
  answerNow,
  type HoldOptions,
  holdResponse,
  sendRecord,
} from './transport/node-http';
export { discardRest, readNodeBody } from './transport/node-body';
export {
  type CapturedWebResponse,
  captureWebResponse,
  NULL_BODY_STATUSES,
  readWebRequest,
  toWebResponse,
} from './transport/web';
export {
  answerWhileDiscarding,
  DISCARD_AFTER_ANSWER_BYTES,
  DISCARD_AFTER_ANSWER_MS,
  DISCARD_IDLE_MS,
} from './transport/web-discard';
export { mergeOptions } from './http/options';
export {
  createInboxEngine,
  DEFAULT_INBOX_HEADERS,
  type InboxDecision,
  type InboxEngine,
} from './inbox/accept';
export { createFallbackInboxEngine } from './inbox/fallback-engine';
export { canonicalJson, sha256Hex } from './http/fingerprint';
export type { HttpHeaders, HttpResponseRecord } from './http/types';
export type {
  BatchItem,
  BatchItemHandler,
  DeliveryBatch,
  ItemOutcome,
  PresetItem,
  RefusedItem,
} from './http/batch-types';
export * from './inbox/relay';
export {
  type ConsumeOutcome,
  createInboxConsumer,
  type InboxConsumer,
  type InboxConsumerOptions,
  InvalidJobData,
  queuedDeliveryOf,
} from './inbox/consumer';
export type { BatchEntry, DeliveryBatcher } from './inbox/inbox-store';
export type {
  ClaimFence,
  ClaimInput,
  CompleteInput,
  FailInput,
  FirstRun,
  IgnoredCount,
  IgnoredQuery,
  IgnoredTotal,
  PurgeInput,
  ReclaimInput,
} from './store-contract';
export { leaseCount, leasesOf, withLeases } from './inbox/lease-count';
export { numberOption } from './inbox/run';
export { resolveListInput, resolvePurgeInput } from './inbox/list-input';
export {
  BACKLOG_LIMITS,
  type BacklogRow,
  type BacklogTally,
  backlogOf,
  backlogTallies,
  type ResolvedBacklogInput,
  resolveBacklogInput,
} from './inbox/backlog';
