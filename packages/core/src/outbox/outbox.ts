/**
 * @module `Outbox`: what a handler calls to record an outbound side effect in its own
 * transaction. The row commits with the handler's writes and its receipt, or rolls back with
 * them; the dispatcher (dispatcher.ts) sends what committed, under the effect's stable key.
 */
import { ConfigError, ErrorCode, IdempotencyError } from '../errors';
import type { NewDelivery } from '../inbox/types';
import type { RunContext } from '../types';
import { OutboxHeader } from './rows';
import type { OutboxMessage, OutboxRecordStore } from './types';

/** The default for {@link OutboxOptions.maxPayloadBytes}: 256 KiB. */
export const DEFAULT_MAX_PAYLOAD_BYTES = 256 * 1024;
/** The largest `maxPayloadBytes` allowed: 16 MiB. */
const MAX_PAYLOAD_BYTES_LIMIT = 16 * 1024 * 1024;
/** A sender's name: what the dispatcher's `senders` map is keyed by, stored in the row's `provider` column. */
export const SENDER_NAME = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/;

/** Options of {@link Outbox}. */
export interface OutboxOptions<Tx> {
  /** Where messages are recorded: `new SqlOutbox(db, { receipts: store })`, on the receipts store's own connection. Required. */
  readonly store: OutboxRecordStore<Tx>;
  /** The largest payload, in bytes of its JSON; a larger one is refused when recorded. At most 16 MiB. Defaults to 256 KiB. */
  readonly maxPayloadBytes?: number;
}

/**
 * The part of a run's context the outbox reads: any handler's context (guard, adapters, routes,
 * batch items, inbox worker, queue consumers). `add` takes one whose transaction is typed
 * `unknown` too (`req.idempotency`, a route's context): the run's transaction is always its
 * receipts store's, as `requireTransaction` reads it.
 */
export type OutboxContext<Tx> = Pick<RunContext<Tx>, 'key' | 'transaction' | 'effectKey'>;

/** `ERR_IDEMPOTENCY_OUTBOX_MESSAGE_INVALID` for `problem`: a message that cannot be recorded, or a row that cannot be sent. */
export function invalid(problem: string): IdempotencyError {
  return new IdempotencyError(
    ErrorCode.OUTBOX_MESSAGE_INVALID,
    `Invalid outbox message: ${problem}`,
  );
}

/**
 * Records outbound side effects (an HTTP call, an email, a message for any sender you plug) in the
 * handler's transaction: they are sent after the run commits, by `createOutboxDispatcher`, each
 * with its effect key on every attempt; a run that rolls back sends nothing.
 * @example
 * const outbox = new Outbox({ store: new SqlOutbox(pool, { receipts: store }) });
 * await guard.run(key, async (context) => {
 *   await context.transaction!.query('UPDATE orders SET paid = true WHERE id = $1', [orderId]);
 *   await outbox.add(context, { name: 'receipt-email', sender: 'email', payload: { to, subject, text } });
 * });
 * @see docs/outbox.md
 */
export class Outbox<Tx = unknown> {
  /** The largest payload accepted, in bytes of its JSON. */
  readonly maxPayloadBytes: number;
  private readonly store: OutboxRecordStore<Tx>;

  /** @throws {ConfigError} naming `store` or `maxPayloadBytes` when invalid. */
  constructor(options: OutboxOptions<Tx>) {
    const { store, maxPayloadBytes = DEFAULT_MAX_PAYLOAD_BYTES } = options ?? ({} as never);
    if (typeof (store as Partial<OutboxRecordStore<Tx>> | undefined)?.enqueueIn !== 'function')
      throw new ConfigError(
        'store',
        'must be an outbox store built with its receipts store (new SqlOutbox(db, { receipts: store }))',
      );
    if (
      !Number.isSafeInteger(maxPayloadBytes) ||
      maxPayloadBytes < 1 ||
      maxPayloadBytes > MAX_PAYLOAD_BYTES_LIMIT
    )
      throw new ConfigError(
        'maxPayloadBytes',
        `must be a whole number of bytes from 1 to ${MAX_PAYLOAD_BYTES_LIMIT}`,
      );
    this.store = store;
    this.maxPayloadBytes = maxPayloadBytes;
  }

  /**
   * Records `message` in the run's transaction and resolves with its effect key
   * (`context.effectKey(message.name)`). A name already recorded under this receipt for the same
   * sender (the handler recorded it twice, or an earlier committed run of a redelivered receipt
   * did) is kept as it was: one message, one send.
   * @throws {IdempotencyError} `ERR_IDEMPOTENCY_OUTBOX_TRANSACTION_MISSING`: the run has no
   *   transaction (a guard that is not transactional, or a store without transactions).
   * @throws {IdempotencyError} `ERR_IDEMPOTENCY_OUTBOX_MESSAGE_INVALID`: the sender's name is not
   *   one, or the payload is not JSON-serialisable or is larger than `maxPayloadBytes`.
   * @throws {IdempotencyError} `ERR_IDEMPOTENCY_EFFECT_NAME_INVALID`: the name cannot make a key.
   */
  async add<P>(context: OutboxContext<unknown>, message: OutboxMessage<P>): Promise<string> {
    const { transaction } = context;
    if (transaction === undefined || transaction === null)
      throw new IdempotencyError(
        ErrorCode.OUTBOX_TRANSACTION_MISSING,
        "The outbox records in the run's transaction, and this run has none: use a transactional guard (`transactional: true`) over a store with transactions (SqlStore)",
      );
    const delivery = this.rowOf(context, message);
    // The run's transaction is its receipts store's, the store this outbox records through.
    await this.store.enqueueIn(delivery, transaction as Tx);
    return delivery.externalId;
  }

  /** The row `message` is stored as; see {@link OutboxRecordStore}. */
  private rowOf<P>(context: OutboxContext<unknown>, message: OutboxMessage<P>): NewDelivery {
    if (typeof message !== 'object' || message === null) throw invalid('expected an object');
    const { name, sender, payload } = message;
    if (typeof sender !== 'string' || !SENDER_NAME.test(sender))
      throw invalid(
        `sender must be a name of 1 to 64 letters, digits, ".", "_", ":" or "-", starting with a letter or digit; got ${JSON.stringify(sender)}`,
      );
    const key = context.effectKey(name);
    let json: string | undefined;
    try {
      json = JSON.stringify(payload);
    } catch (error) {
      throw invalid(
        `the payload of "${name}" is not JSON-serialisable: ${(error as Error).message}`,
      );
    }
    if (json === undefined) throw invalid(`the payload of "${name}" is not JSON-serialisable`);
    const body = Buffer.from(json, 'utf8');
    if (body.length > this.maxPayloadBytes)
      throw invalid(
        `the payload of "${name}" is ${body.length} bytes of JSON; the limit is ${this.maxPayloadBytes} (maxPayloadBytes)`,
      );
    return {
      provider: sender,
      externalId: key,
      orderingKey: null,
      headers: {
        [OutboxHeader.RECEIPT_PROVIDER]: context.key.provider,
        [OutboxHeader.RECEIPT_ID]: context.key.externalId,
        [OutboxHeader.EFFECT_NAME]: name,
      },
      body,
    };
  }
}
