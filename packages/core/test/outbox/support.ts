/**
 * What the outbox's core tests share: an outbox recording into an InMemoryInbox as SqlOutbox
 * records into its table (one row per message, shaped by `Outbox.add`), and a run's context with
 * a real guard's effect keys. InMemoryStore has no transactions, so the context carries a
 * stand-in transaction handle: in core's unit tests only (the SQL store's tests record in real ones).
 */
import { IdempotencyGuard, InMemoryStore, RequestKey } from '../../src';
import type { InMemoryInbox, NewDelivery } from '../../src/inbox';
import { Outbox, type OutboxMessage } from '../../src/outbox';

const guard = new IdempotencyGuard(new InMemoryStore());

/** A run's context for the receipt `provider`/`externalId`, as `Outbox.add` reads it. */
export function runContext(externalId: string, provider = 'stripe') {
  const key = new RequestKey(provider, externalId);
  return {
    key,
    transaction: { receipt: externalId } as object,
    effectKey: (name: string) => guard.effectKey(key, name),
  };
}

/** The effect key `name` gets under the receipt `stripe`/`externalId`. */
export const keyOf = (externalId: string, name: string) =>
  guard.effectKey({ provider: 'stripe', externalId }, name);

/** An outbox whose rows go into `inbox` (standing for the outbox table), with what each insert was given. */
export function outboxInto(inbox: InMemoryInbox) {
  const inserts: { delivery: NewDelivery; transaction: unknown }[] = [];
  const outbox = new Outbox<object>({
    store: {
      enqueueIn: (delivery, transaction) => {
        inserts.push({ delivery, transaction });
        return inbox.enqueue(delivery);
      },
    },
  });
  /** Records `message` in the run of receipt `stripe`/`externalId`; resolves with its key. */
  const record = <P>(externalId: string, message: OutboxMessage<P>) =>
    outbox.add(runContext(externalId), message);
  return { outbox, inserts, record };
}

export function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}
