/**
 * What framework adapters and stores are built from: the HTTP engine, body helpers, option
 * merging and the limits a store honours. Applications import from the package root instead.
 * @module @webhook-idempotency/core/adapter
 */
export {
  DEFAULT_PURGE_BATCH_SIZE,
  DEFAULT_STALE_AFTER_SECONDS,
  MAX_ERROR_LENGTH,
  MAX_FINGERPRINT_LENGTH,
  MAX_KEY_BYTES,
} from './constants';
export { HTTP_STATUS_BY_CODE } from './errors';
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
export { mergeOptions } from './http/options';
export {
  createInboxEngine,
  DEFAULT_INBOX_HEADERS,
  type InboxDecision,
  type InboxEngine,
} from './inbox/accept';
