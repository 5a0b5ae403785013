/**
 * @module The inbox repairs an operator asks for, written once over any `InboxStore` (SqlInbox,
 * InMemoryInbox): retry one delivery, redeliver one deliberately, retry every dead one of a
 * filter. What the `webhook-idempotency` CLI and the dashboard both run, so both decide alike.
 */
import type { KeyLike } from '@webhook-idempotency/core';
import type { DeliverySummary, InboxStore, StoredDelivery } from '@webhook-idempotency/core/inbox';
import type { ForgetResult } from './admin-types';

/**
 * What {@link retryDelivery} did. `retried: true`: a dead delivery went back to pending with a
 * fresh budget of failures, or a pending one waiting for its backoff became due now. Otherwise
 * nothing changed:
 * - `due`: it is pending and due already (a worker takes it at its next poll);
 * - `processing`: a worker holds it; `done`: its handler ran and committed (see {@link redeliverDelivery});
 * - `changed`: it changed between the read and the write.
 */
export type RetryOutcome =
  | {
      readonly retried: true;
      readonly before: StoredDelivery;
      readonly after: StoredDelivery | null;
    }
  | {
      readonly retried: false;
      readonly reason: 'due' | 'processing' | 'done' | 'changed';
      readonly before: StoredDelivery;
      readonly after: StoredDelivery | null;
    };

/**
 * Retries one delivery by hand: a `dead` one back to `pending` (due now, failures from 0), a
 * `pending` one waiting for its backoff due now; each one conditional write fenced on what was
 * just read. Resolves `null` when no delivery has this key.
 * @example
 * const outcome = await retryDelivery(inbox, { provider: 'stripe', externalId: 'evt_1' });
 */
export async function retryDelivery(
  inbox: InboxStore,
  { provider, externalId }: KeyLike,
): Promise<RetryOutcome | null> {
  const before = await inbox.find(provider, externalId);
  if (!before) return null;
  if (before.status === 'processing' || before.status === 'done')
    return { retried: false, reason: before.status, before, after: before };
  // `true` when the write found the delivery no longer as it was read (or a pending one already due).
  const missed =
    before.status === 'dead'
      ? (await inbox.redeliver(provider, externalId)) === null
      : !(await inbox.retryNow(provider, externalId));
  const after = await inbox.find(provider, externalId);
  if (!missed) return { retried: true, before, after };
  const isDue = before.status === 'pending' && after?.status === 'pending';
  return { retried: false, reason: isDue ? 'due' : 'changed', before, after };
}

/** The receipts a redelivery of a `done` delivery forgets first: `ReceiptsAdmin` has it. */
export interface ForgetsReceipts {
  forget(key: KeyLike): Promise<ForgetResult>;
}

/**
 * What {@link redeliverDelivery} did. `redelivered: true`: back to pending, due now (a done
 * one's receipt deleted first when it had one: `receiptForgotten`). Otherwise nothing changed:
 * - `not-finished`: it is pending or processing;
 * - `needs-force`: it is done, and `force` was not given (its handler would run again);
 * - `receipt-processing`: its receipt is held by a run;
 * - `changed`: it changed between the read and the write.
 */
export type RedeliverOutcome =
  | {
      readonly redelivered: true;
      readonly before: StoredDelivery;
      readonly after: StoredDelivery | null;
      readonly receiptForgotten: boolean;
    }
  | {
      readonly redelivered: false;
      readonly reason: 'not-finished' | 'needs-force' | 'receipt-processing' | 'changed';
      readonly before: StoredDelivery;
      readonly after: StoredDelivery | null;
    };

/**
 * Puts a finished delivery back for processing, deliberately: a `dead` one as
 * {@link retryDelivery} does, a `done` one only with `force`, after deleting its receipt (which
 * would otherwise only be replayed) so that its handler runs again. `receipts` is asked only for a
 * done delivery. Resolves `null` when no delivery has this key.
 * @example
 * await redeliverDelivery({ inbox, receipts: new ReceiptsAdmin(db) }, key, { force: true });
 */
export async function redeliverDelivery(
  {
    inbox,
    receipts,
  }: { readonly inbox: InboxStore; readonly receipts: () => Promise<ForgetsReceipts> },
  key: KeyLike,
  { force = false }: { readonly force?: boolean } = {},
): Promise<RedeliverOutcome | null> {
  const before = await inbox.find(key.provider, key.externalId);
  if (!before) return null;
  const refused = (reason: 'not-finished' | 'needs-force' | 'receipt-processing' | 'changed') =>
    ({ redelivered: false, reason, before, after: before }) as const;
  if (before.status === 'pending' || before.status === 'processing') return refused('not-finished');
  let receiptForgotten = false;
  if (before.status === 'done') {
    if (!force) return refused('needs-force');
    // The receipt first: redelivered while it is still completed, a worker would only replay it.
    const forgot = await (await receipts()).forget(key);
    if (!forgot.forgotten && forgot.reason !== 'not-found') return refused('receipt-processing');
    receiptForgotten = forgot.forgotten;
  }
  const previous = await inbox.redeliver(key.provider, key.externalId);
  const after = await inbox.find(key.provider, key.externalId);
  return previous
    ? { redelivered: true, before, after, receiptForgotten }
    : { redelivered: false, reason: 'changed', before, after };
}

/** Which dead deliveries {@link retryDeadDeliveries} takes. */
export interface RetryDeadOptions {
  /** Only this provider's. */
  readonly provider?: string;
  /** Only those that died within this many milliseconds (by `now`). */
  readonly sinceMs?: number;
  /** List what would be retried; change nothing. */
  readonly dryRun?: boolean;
  /** The clock `sinceMs` is judged by. Defaults to `Date.now`. */
  readonly now?: number;
}

/** What {@link retryDeadDeliveries} found and did. */
export interface RetryDeadResult {
  /** The dead deliveries that matched, in receipt order. */
  readonly matched: readonly DeliverySummary[];
  /** How many went back to pending (0 on a dry run); the rest changed meanwhile and were left alone. */
  readonly retried: number;
}

/** Dead deliveries read per page. */
const PAGE = 500;

/**
 * Every dead delivery of a filter back to pending, due now, with a fresh budget of failures, page
 * by page (a keyset on the delivery id); each write is fenced as {@link retryDelivery}'s, so one
 * that a worker or another retry changed meanwhile is left as it is.
 * @example
 * const { retried } = await retryDeadDeliveries(inbox, { provider: 'stripe', sinceMs: 86_400_000 });
 */
export async function retryDeadDeliveries(
  inbox: InboxStore,
  options: RetryDeadOptions = {},
): Promise<RetryDeadResult> {
  const now = options.now ?? Date.now();
  const recent = (d: DeliverySummary) =>
    options.sinceMs === undefined ||
    (d.finishedAt !== null && now - d.finishedAt.getTime() <= options.sinceMs);
  const matched: DeliverySummary[] = [];
  let retried = 0;
  for (let afterId = 0; ; ) {
    const page = await inbox.list({
      status: 'dead',
      ...(options.provider !== undefined ? { provider: options.provider } : {}),
      limit: PAGE,
      afterId,
    });
    for (const d of page.filter(recent)) {
      matched.push(d);
      if (!options.dryRun && (await inbox.redeliver(d.provider, d.externalId)) === 'dead')
        retried++;
    }
    if (page.length < PAGE) return { matched, retried };
    afterId = page[page.length - 1]!.id;
  }
}
