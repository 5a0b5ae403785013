/** @module The error family: one base class with a `code`, subclasses where callers branch. */
import { MAX_ERROR_LENGTH } from './constants';

/** Every code an {@link IdempotencyError} can carry. Each has an entry in docs/reference/errors.md. */
export const ErrorCode = {
  KEY_INVALID: 'ERR_IDEMPOTENCY_KEY_INVALID',
  KEY_MISSING: 'ERR_IDEMPOTENCY_KEY_MISSING',
  IN_PROGRESS: 'ERR_IDEMPOTENCY_IN_PROGRESS',
  FINGERPRINT_MISMATCH: 'ERR_IDEMPOTENCY_FINGERPRINT_MISMATCH',
  CLAIM_LOST: 'ERR_IDEMPOTENCY_CLAIM_LOST',
  STORE: 'ERR_IDEMPOTENCY_STORE',
  SIGNATURE_INVALID: 'ERR_IDEMPOTENCY_SIGNATURE_INVALID',
  RAW_BODY_MISSING: 'ERR_IDEMPOTENCY_RAW_BODY_MISSING',
  RESPONSE_TOO_LARGE: 'ERR_IDEMPOTENCY_RESPONSE_TOO_LARGE',
  RESPONSE_NOT_CAPTURED: 'ERR_IDEMPOTENCY_RESPONSE_NOT_CAPTURED',
  HANDLER_TIMEOUT: 'ERR_IDEMPOTENCY_HANDLER_TIMEOUT',
  TRANSACTION_CLOSED: 'ERR_IDEMPOTENCY_TRANSACTION_CLOSED',
  TRANSACTION_REFUSED: 'ERR_IDEMPOTENCY_TRANSACTION_REFUSED',
  CONFIG: 'ERR_IDEMPOTENCY_CONFIG',
  PAYLOAD_INVALID: 'ERR_IDEMPOTENCY_PAYLOAD_INVALID',
  EVENT_UNROUTED: 'ERR_IDEMPOTENCY_EVENT_UNROUTED',
  BACKPRESSURE: 'ERR_IDEMPOTENCY_BACKPRESSURE',
  EFFECT_NAME_INVALID: 'ERR_IDEMPOTENCY_EFFECT_NAME_INVALID',
  OUTBOX_TRANSACTION_MISSING: 'ERR_IDEMPOTENCY_OUTBOX_TRANSACTION_MISSING',
  OUTBOX_MESSAGE_INVALID: 'ERR_IDEMPOTENCY_OUTBOX_MESSAGE_INVALID',
} as const;
/** One of {@link ErrorCode}. */
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/**
 * The HTTP status each code answers with: the one table the adapters render from.
 * `RAW_BODY_MISSING`, `CONFIG`, `EFFECT_NAME_INVALID` and the `OUTBOX_*` codes are programmer
 * errors (500): the app is set up wrongly.
 */
export const HTTP_STATUS_BY_CODE: Readonly<Record<ErrorCode, number>> = {
  ERR_IDEMPOTENCY_KEY_INVALID: 400,
  ERR_IDEMPOTENCY_KEY_MISSING: 400,
  ERR_IDEMPOTENCY_SIGNATURE_INVALID: 401,
  ERR_IDEMPOTENCY_IN_PROGRESS: 409,
  ERR_IDEMPOTENCY_CLAIM_LOST: 409,
  ERR_IDEMPOTENCY_RESPONSE_TOO_LARGE: 500,
  ERR_IDEMPOTENCY_RESPONSE_NOT_CAPTURED: 500,
  ERR_IDEMPOTENCY_FINGERPRINT_MISMATCH: 422,
  ERR_IDEMPOTENCY_STORE: 503,
  ERR_IDEMPOTENCY_HANDLER_TIMEOUT: 503,
  ERR_IDEMPOTENCY_TRANSACTION_CLOSED: 500,
  ERR_IDEMPOTENCY_TRANSACTION_REFUSED: 500,
  ERR_IDEMPOTENCY_RAW_BODY_MISSING: 500,
  ERR_IDEMPOTENCY_CONFIG: 500,
  ERR_IDEMPOTENCY_PAYLOAD_INVALID: 422,
  ERR_IDEMPOTENCY_EVENT_UNROUTED: 422,
  ERR_IDEMPOTENCY_BACKPRESSURE: 503,
  ERR_IDEMPOTENCY_EFFECT_NAME_INVALID: 500,
  ERR_IDEMPOTENCY_OUTBOX_TRANSACTION_MISSING: 500,
  ERR_IDEMPOTENCY_OUTBOX_MESSAGE_INVALID: 500,
};

const DOCS = 'docs/reference/errors.md#';

function withHelp(message: string, code: ErrorCode): string {
  return `${message} (see ${DOCS}${code.toLowerCase()})`;
}

/** Base class of every error this library throws on purpose. Check with {@link isIdempotencyError}. */
export class IdempotencyError extends Error {
  /** Stable machine-readable code; see {@link ErrorCode}. */
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(withHelp(message, code), options);
    this.code = code;
    this.name = 'IdempotencyError';
  }

  /** The HTTP status an adapter answers this error with. */
  get httpStatus(): number {
    return HTTP_STATUS_BY_CODE[this.code];
  }
}

/** A request field a key is made of, as {@link InvalidRequestKey} names it. */
export type KeyField = 'provider' | 'externalId' | 'orderingKey';

/**
 * A provider name, external id or inbox ordering key that cannot be stored as a key (empty
 * where one is needed, too long, a NUL or an unpaired surrogate, the wrong type). `field` names
 * which one. Answered 400 `ERR_IDEMPOTENCY_KEY_INVALID`.
 */
export class InvalidRequestKey extends IdempotencyError {
  readonly field: KeyField;
  constructor(field: KeyField, problem: string) {
    super(ErrorCode.KEY_INVALID, `Invalid request key: ${field} ${problem}`);
    this.name = 'InvalidRequestKey';
    this.field = field;
  }
}

/** Another worker holds a fresh claim on this delivery; ask the provider to come back later. */
export class RequestInProgress extends IdempotencyError {
  /** Whole seconds until the other worker's claim goes stale and can be taken over (at least 1). */
  readonly retryAfterSeconds: number;
  constructor(provider: string, externalId: string, retryAfterSeconds: number) {
    super(
      ErrorCode.IN_PROGRESS,
      `Delivery ${provider}/${externalId} is being handled by another worker; retry after ${retryAfterSeconds}s`,
    );
    this.name = 'RequestInProgress';
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** The same key arrived with a different request fingerprint: an id reused for another payload. */
export class FingerprintMismatch extends IdempotencyError {
  constructor(provider: string, externalId: string) {
    super(
      ErrorCode.FINGERPRINT_MISMATCH,
      `Delivery ${provider}/${externalId} was first received with a different payload; the handler was not run`,
    );
    this.name = 'FingerprintMismatch';
  }
}

/**
 * This worker's claim was taken over (it ran longer than `staleAfterSeconds`), so its result was
 * not recorded: the new owner's result stands. In transactional mode the handler's writes were
 * rolled back with it.
 */
export class ClaimLost extends IdempotencyError {
  /** The attempt number this worker claimed with. */
  readonly attempts: number;
  constructor(provider: string, externalId: string, attempts: number) {
    super(
      ErrorCode.CLAIM_LOST,
      `Claim ${attempts} on ${provider}/${externalId} was taken over by another worker; this result was not recorded`,
    );
    this.name = 'ClaimLost';
    this.attempts = attempts;
  }
}

/** Which store failed: the receipts (the guard's `Store`) or the inbox's deliveries (`InboxStore`). */
export type StoreKind = 'receipts' | 'inbox';

/**
 * The store could not be reached or answered with an error; the driver's error is the `cause`.
 * `store` says which one: an HTTP caller is told "The receipts store is unavailable" or "The
 * inbox store is unavailable", never the driver's message.
 */
export class StoreError extends IdempotencyError {
  /** Which store failed. Defaults to `'receipts'`. */
  readonly store: StoreKind;
  constructor(operation: string, cause: unknown, store: StoreKind = 'receipts') {
    const detail = cause instanceof Error ? cause.message : String(cause);
    const which = store === 'inbox' ? 'Inbox store' : 'Store';
    super(ErrorCode.STORE, `${which} failed during ${operation}: ${detail}`, { cause });
    this.name = 'StoreError';
    this.store = store;
  }
}

/**
 * A transactional run outlived `handlerTimeoutSeconds`: its transaction was rolled back (the
 * handler's writes are gone), the receipt is `failed`, and the provider's next delivery runs the
 * handler again. Answered like a store failure: 503 with `Retry-After`.
 */
export class HandlerTimeout extends IdempotencyError {
  /** The deadline that passed, in milliseconds. */
  readonly timeoutMs: number;
  /** `outcome` says what became of the run; by default, a transactional one's rollback. */
  constructor(
    provider: string,
    externalId: string,
    timeoutMs: number,
    outcome = 'its transaction was rolled back and the receipt marked failed',
  ) {
    super(
      ErrorCode.HANDLER_TIMEOUT,
      `The handler for ${provider}/${externalId} did not finish within ${timeoutMs} ms; ${outcome}`,
    );
    this.name = 'HandlerTimeout';
    this.timeoutMs = timeoutMs;
  }
}

/**
 * A call on a transaction handle after its transaction ended (committed, rolled back, or rolled
 * back at the handler deadline). Writes made after the answer are not part of the receipt's
 * transaction: use inbox mode for "answer first, work later".
 */
export class TransactionClosed extends IdempotencyError {
  /** How the transaction ended. */
  readonly reason: 'committed' | 'rolled back' | 'timed out';
  constructor(reason: 'committed' | 'rolled back' | 'timed out') {
    super(
      ErrorCode.TRANSACTION_CLOSED,
      `The transaction handle was used after its transaction ${reason}; nothing was run`,
    );
    this.name = 'TransactionClosed';
    this.reason = reason;
  }
}

/** An option is missing or has the wrong type or range. `option` names it. Thrown at construction. */
export class ConfigError extends IdempotencyError {
  readonly option: string;
  constructor(option: string, problem: string) {
    super(ErrorCode.CONFIG, `Invalid option "${option}": ${problem}`);
    this.name = 'ConfigError';
    this.option = option;
  }
}

/**
 * A delivery's payload failed its route's schema: nothing was claimed or stored over HTTP (422,
 * the issues listed, so the provider redelivers it after a deploy that accepts it); in inbox mode
 * the delivery goes `dead` at once with the issues as its error (redeliver it after the deploy).
 */
export class PayloadInvalid extends IdempotencyError {
  /** The event name the delivery carried. */
  readonly event: string | undefined;
  /** The schema's issues, one line each (`data.object.amount: Expected number`). */
  readonly issues: readonly string[];
  constructor(provider: string, event: string | undefined, issues: readonly string[]) {
    const shown = issues.slice(0, 10).join('; ');
    const more = issues.length > 10 ? `; and ${issues.length - 10} more` : '';
    super(
      ErrorCode.PAYLOAD_INVALID,
      `The ${provider} event ${event ?? '(unnamed)'} failed its route's schema: ${shown}${more}; nothing was run`,
    );
    this.name = 'PayloadInvalid';
    this.event = event;
    this.issues = issues;
  }
}

/**
 * No route takes the delivery's event and its route set refuses unrouted events
 * (`unrouted: 'refuse'`): answered 422 with nothing stored; in inbox mode, `dead` at once.
 */
export class EventUnrouted extends IdempotencyError {
  readonly event: string | undefined;
  constructor(provider: string, event: string | undefined) {
    super(
      ErrorCode.EVENT_UNROUTED,
      `No route takes the ${provider} event ${event ?? '(unnamed)'}, and its routes refuse unrouted events; nothing was run`,
    );
    this.name = 'EventUnrouted';
    this.event = event;
  }
}

const ERROR_NAMES = new Set([
  'PayloadInvalid',
  'EventUnrouted',
  'IdempotencyError',
  'InvalidRequestKey',
  'RequestInProgress',
  'FingerprintMismatch',
  'ClaimLost',
  'StoreError',
  'HandlerTimeout',
  'TransactionClosed',
  'ConfigError',
]);

/**
 * True for any error of this library, also when two copies of the package are installed
 * (where `instanceof` fails): it checks the name and the code prefix.
 */
export function isIdempotencyError(error: unknown): error is IdempotencyError {
  if (error instanceof IdempotencyError) return true;
  if (typeof error !== 'object' || error === null) return false;
  const { name, code } = error as { name?: unknown; code?: unknown };
  return (
    typeof name === 'string' &&
    ERROR_NAMES.has(name) &&
    typeof code === 'string' &&
    code.startsWith('ERR_IDEMPOTENCY_')
  );
}

/** An error's text as a receipt stores it: `Name: message`, at most {@link MAX_ERROR_LENGTH} characters. */
export function errorText(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.length > MAX_ERROR_LENGTH ? `${text.slice(0, MAX_ERROR_LENGTH - 1)}…` : text;
}
