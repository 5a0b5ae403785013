/**
 * @module The outbox vocabulary: what a handler records (a message: a name, a sender, a payload),
 * what a sender gets for one attempt, the roles a store plays for the outbox, and the dispatcher's
 * events. The outbox table has the inbox table's shape (one row per message, leased, retried,
 * buried like a stored delivery), so its store is an inbox store on a table of its own; how its
 * columns read for a message is in {@link OutboxRecordStore}.
 */
import type { InboxWorkerStore } from '../inbox/inbox-store';
import type { NewDelivery } from '../inbox/types';

/**
 * The role a store plays for {@link Outbox.add}: insert one row inside a transaction of the
 * receipts store it was built with (`new SqlOutbox(db, { receipts: store })`), so the row commits
 * or rolls back with the handler's writes and its receipt.
 *
 * A message is stored as a delivery row: `provider` is the sender's name, `externalId` the effect
 * key (`context.effectKey(name)`), `headers` name the receipt and the effect
 * (`receipt-provider`, `receipt-id`, `effect-name`), `body` is the payload's JSON, and
 * `orderingKey` is `null`.
 * @typeParam Tx the receipts store's transaction handle.
 */
export interface OutboxRecordStore<Tx = unknown> {
  /**
   * Inserts `delivery` inside `transaction`: `true` when inserted, `false` when a row with its
   * `(provider, externalId)` is already there (nothing changed).
   */
  enqueueIn(delivery: NewDelivery, transaction: Tx): Promise<boolean>;
}

/** What the dispatcher writes and reads: the inbox worker's lease role, on the outbox's table. */
export type OutboxDispatchStore = Pick<
  Required<InboxWorkerStore>,
  'lease' | 'extend' | 'complete' | 'retry' | 'giveBack' | 'bury'
>;

/** One outbound side effect a handler records: sent after its run commits, never if it rolls back. */
export interface OutboxMessage<P = unknown> {
  /**
   * The effect's name in this run (`'refund'`, `'receipt-email'`): its key is
   * `context.effectKey(name)`, the same on every retry and takeover. One name once per run.
   */
  readonly name: string;
  /** The sender that sends it: a key of the dispatcher's `senders` (`'http'`, `'email'`, your own). */
  readonly sender: string;
  /** What the sender gets: JSON-serialisable, at most `maxPayloadBytes` once serialised. */
  readonly payload: P;
}

/** The receipt a message was recorded under. */
export interface OutboxReceipt {
  /** The receipt's provider (`'stripe'`). */
  readonly provider: string;
  /** The receipt's external id (the provider's event id). */
  readonly externalId: string;
}

/** What a sender gets for one attempt of one message. */
export interface SendInput<P = unknown> {
  /** The effect key: send it as the receiving side's idempotency key, on every attempt. */
  readonly key: string;
  /** The effect's name. */
  readonly name: string;
  /** The recorded payload, parsed back from its JSON. */
  readonly payload: P;
  /** The receipt the message was recorded under. */
  readonly receipt: OutboxReceipt;
  /** 1 on the first attempt; the failures before this one plus one. */
  readonly attempt: number;
  /** Aborts at the dispatcher's `sendTimeoutMs`, or when the dispatcher stops and stops waiting. */
  readonly signal: AbortSignal;
}

/**
 * Sends one message. Resolves once the receiving side has accepted it; throws to be tried again
 * after a backoff, or throws {@link PermanentSendFailure} for a refusal no retry can cure, or an
 * `IdempotencyError` `ERR_IDEMPOTENCY_OUTBOX_MESSAGE_INVALID` for a message it cannot send (the
 * message is `dead` at once either way).
 */
// biome-ignore lint/suspicious/noExplicitAny: a sender of any payload fits the dispatcher's map of senders
export type OutboxSender<P = any> = (input: SendInput<P>) => Promise<void>;

/**
 * Thrown by a sender for a refusal no retry can cure (an HTTP 400, an SMTP 550): the dispatcher
 * marks the message `dead` at once with this message as its error, instead of retrying it.
 */
export class PermanentSendFailure extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PermanentSendFailure';
  }
}

/** A message as the dispatcher's events name it. */
export interface OutboxRef {
  /** The row's id in the outbox table. */
  readonly id: number;
  /** The sender's name (a key of the dispatcher's `senders`). */
  readonly sender: string;
  /** The effect key. */
  readonly key: string;
  /** The effect's name. */
  readonly name: string;
  /** The receipt it was recorded under. */
  readonly receipt: OutboxReceipt;
}

/** What the dispatcher reports (`onEvent`). */
export type OutboxEvent =
  /** The sender resolved: the message is `done`. `attempt`: 1 on a first attempt. */
  | { readonly type: 'sent'; readonly message: OutboxRef; readonly attempt: number }
  /** The sender threw: the message is due again after `delayMs`. */
  | {
      readonly type: 'retry';
      readonly message: OutboxRef;
      readonly delayMs: number;
      readonly error: string;
    }
  /** The sender refused for good (`PermanentSendFailure`, an invalid message), or failed for the last allowed time: `dead`. */
  | { readonly type: 'dead'; readonly message: OutboxRef; readonly error: string }
  /** The dispatcher stopped before (or while) sending it: due again at once, no failure counted. */
  | { readonly type: 'given-back'; readonly message: OutboxRef }
  /** Its lease was taken over (this dispatcher was too slow, or presumed dead): nothing written. */
  | { readonly type: 'lease-lost'; readonly message: OutboxRef }
  /** A call to the outbox's store failed; the dispatcher tries again later. */
  | { readonly type: 'store-error'; readonly operation: string; readonly error: string };
