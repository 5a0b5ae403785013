/**
 * @module How an outbox row reads as a message: the headers {@link Outbox.add} writes (the receipt
 * and the effect's name), and the message a stored row stands for, for whatever reads the table
 * (the dispatcher, the CLI, the dashboard).
 */
import type { OutboxReceipt } from './types';

/** The headers of an outbox row: what it was recorded under, in the words operators read. */
export const OutboxHeader = {
  /** The provider of the receipt the message was recorded under. */
  RECEIPT_PROVIDER: 'receipt-provider',
  /** The external id of that receipt. */
  RECEIPT_ID: 'receipt-id',
  /** The effect's name in its run (`'refund'`): the key is the run's `effectKey(name)`. */
  EFFECT_NAME: 'effect-name',
} as const;

/** A stored outbox row as a message: its sender, effect key, effect name and receipt. */
export interface OutboxRow {
  readonly sender: string;
  /** The effect key, sent as the receiving side's idempotency key. */
  readonly key: string;
  /** The effect's name; `null` when the row has no such header (not written by `Outbox.add`). */
  readonly name: string | null;
  /** The receipt it was recorded under; `null` when the row does not name one. */
  readonly receipt: OutboxReceipt | null;
}

/**
 * Reads a stored row of the outbox table (a delivery row: `provider` the sender, `externalId` the
 * effect key, the receipt and name in `headers`) as the message it stands for. A row another
 * writer stored without those headers reads with `name` and `receipt` `null`, never throws.
 * @example
 * const message = outboxRowOf(await outboxTable.find('http', key));
 */
export function outboxRowOf(row: {
  readonly provider: string;
  readonly externalId: string;
  readonly headers: Readonly<Record<string, string>>;
}): OutboxRow {
  const header = (name: string) => {
    const value = Object.hasOwn(row.headers, name) ? row.headers[name] : undefined;
    return typeof value === 'string' ? value : null;
  };
  const provider = header(OutboxHeader.RECEIPT_PROVIDER);
  const externalId = header(OutboxHeader.RECEIPT_ID);
  return {
    sender: row.provider,
    key: row.externalId,
    name: header(OutboxHeader.EFFECT_NAME),
    receipt: provider !== null && externalId !== null ? { provider, externalId } : null,
  };
}
