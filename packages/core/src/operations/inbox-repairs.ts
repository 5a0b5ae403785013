/**
 * @module The inbox repairs an operator asks for, written once over the operator's role of any
 * inbox store (`SqlInbox`, `InMemoryInbox`): retry one delivery, redeliver one deliberately, retry
 * every dead one of a filter. What the `webhook-idempotency` CLI and the dashboard both run, so
 * both decide alike. Every write is a compare-and-set on the state the operator saw (its status
 * and leases): a delivery that moved meanwhile, a dead one that a worker has run to `done`
 * since, is left as it is, and the outcome says what it is now.
 */
import type { InboxOperatorStore } from '../inbox/inbox-store';
import { leasesOf } from '../inbox/lease-count';
import type { DeliverySummary, ExpectedDelivery, StoredDelivery } from '../inbox/types';
import type { KeyLike } from '../request-key';
import type { ForgetResult } from './receipt-repairs';

/** The state an operator saw; a repair given it changes the delivery only while it is still so. */
export interface SeenOption {
  /**
   * The status and leases the operator was shown (a confirmation page's). Without it, the state
   * the repair reads first stands for it.
   */
  readonly expected?: ExpectedDelivery;
}

/**
 * What {@link retryDelivery} did. `retried: true`: a dead delivery went back to pending with a
 * fresh budget of failures, or a pending one waiting for its backoff became due now. Otherwise
 * nothing changed:
 * - `due`: it is pending and due already (a worker takes it at its next poll);
 * - `processing`: a worker holds it; `done`: its handler ran and committed (see {@link redeliverDelivery});
 * - `changed`: it is no longer in the state the operator saw (`after` is what it is now).
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

/** True when `delivery` is in the state `expected` names. */
const isAsSeen = (delivery: StoredDelivery | null, expected: ExpectedDelivery | undefined) =>
  expected === undefined ||
  (delivery !== null &&
    delivery.status === expected.status &&
    leasesOf(delivery) === leasesOf(expected));

/**
 * What happened to a delivery since it was seen, in words (`was done meanwhile`): what the CLI and
 * the dashboard say of a repair that left it as it is.
 */
export function movedSince(seen: ExpectedDelivery, now: StoredDelivery | null): string {
  if (now === null) return 'was deleted meanwhile (purged)';
  if (now.status === 'done') return 'was done meanwhile';
  const leases = leasesOf(now);
  if (now.status === 'processing')
    return `was taken by a worker meanwhile (processing, lease ${leases})`;
  if (now.status === 'dead')
    return leases === leasesOf(seen) ? 'is dead' : `died again meanwhile (lease ${leases})`;
  if (seen.status === 'pending' && leases === leasesOf(seen))
    return 'became due meanwhile (pending)';
  const next = `pending, lease ${leases + 1} next`;
  if (seen.status === 'pending') return `was run and failed again meanwhile (${next})`;
  return seen.status === 'done'
    ? `was redelivered meanwhile (${next})`
    : `was retried meanwhile (${next})`;
}

/**
 * Retries one delivery by hand: a `dead` one back to `pending` (due now, failures from 0), a
 * `pending` one waiting for its backoff due now; each one conditional write, a compare-and-set on
 * the state seen (`expected`, or what was just read). Resolves `null` when no delivery has this key.
 * @example
 * const outcome = await retryDelivery(inbox, { provider: 'stripe', externalId: 'evt_1' });
 */
export async function retryDelivery(
  inbox: InboxOperatorStore,
  { provider, externalId }: KeyLike,
  { expected }: SeenOption = {},
): Promise<RetryOutcome | null> {
  const before = await inbox.find(provider, externalId);
  if (!before) return null;
  if (!isAsSeen(before, expected))
    return { retried: false, reason: 'changed', before, after: before };
  if (before.status === 'processing' || before.status === 'done')
    return { retried: false, reason: before.status, before, after: before };
  const seen = { leases: leasesOf(before) };
  const changed =
    before.status === 'dead'
      ? await inbox.redeliver(provider, externalId, { status: 'dead', ...seen })
      : await inbox.retryNow(provider, externalId, { status: 'pending', ...seen });
  const after = await inbox.find(provider, externalId);
  if (changed) return { retried: true, before, after };
  const isDue =
    before.status === 'pending' && after?.status === 'pending' && leasesOf(after) === seen.leases;
  return { retried: false, reason: isDue ? 'due' : 'changed', before, after };
}

/** The receipts a redelivery of a `done` delivery forgets first: `ReceiptsAdmin` (`@webhook-idempotency/sql`) is one. */
export interface ForgetsReceipts {
  forget(key: KeyLike): Promise<ForgetResult>;
}

/**
 * What {@link redeliverDelivery} did. `redelivered: true`: back to pending, due now (a done
 * one's receipt deleted first when it had one: `receiptForgotten`). Otherwise the delivery did not
 * change:
 * - `not-finished`: it is pending or processing;
 * - `needs-force`: it is done, and `force` was not given (its handler would run again);
 * - `receipt-processing`: its receipt is held by a run;
 * - `changed`: it is no longer in the state the operator saw (`after` is what it is now); a
 *   forced one's receipt may have been deleted already (`receiptForgotten`).
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
      readonly receiptForgotten: boolean;
    };

/**
 * Puts a finished delivery back for processing, deliberately: a `dead` one as
 * {@link retryDelivery} does, a `done` one only with `force`, after deleting its receipt (which
 * would otherwise only be replayed) so that its handler runs again. The write is a compare-and-set
 * on the state seen (`expected`, or what was just read): without `force`, a dead delivery that
 * became done meanwhile is left done. `receipts` is asked only for a done delivery. Resolves
 * `null` when no delivery has this key.
 * @example
 * await redeliverDelivery({ inbox, receipts: new ReceiptsAdmin(db) }, key, { force: true });
 */
export async function redeliverDelivery(
  {
    inbox,
    receipts,
  }: { readonly inbox: InboxOperatorStore; readonly receipts: () => Promise<ForgetsReceipts> },
  key: KeyLike,
  { force = false, expected }: { readonly force?: boolean } & SeenOption = {},
): Promise<RedeliverOutcome | null> {
  const before = await inbox.find(key.provider, key.externalId);
  if (!before) return null;
  let receiptForgotten = false;
  const refused = (reason: 'not-finished' | 'needs-force' | 'receipt-processing' | 'changed') =>
    ({ redelivered: false, reason, before, after: before, receiptForgotten }) as const;
  if (!isAsSeen(before, expected)) return refused('changed');
  if (before.status === 'pending' || before.status === 'processing') return refused('not-finished');
  if (before.status === 'done') {
    if (!force) return refused('needs-force');
    // The receipt first: redelivered while it is still completed, a worker would only replay it.
    const forgot = await (await receipts()).forget(key);
    if (!forgot.forgotten && forgot.reason !== 'not-found') return refused('receipt-processing');
    receiptForgotten = forgot.forgotten;
  }
  const changed = await inbox.redeliver(key.provider, key.externalId, {
    status: before.status,
    leases: leasesOf(before),
  });
  const after = await inbox.find(key.provider, key.externalId);
  return changed
    ? { redelivered: true, before, after, receiptForgotten }
    : { redelivered: false, reason: 'changed', before, after, receiptForgotten };
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

/** A matched dead delivery that changed before its retry, and what it is now (`null`: purged). */
export interface LeftAsItIs {
  readonly delivery: DeliverySummary;
  readonly now: StoredDelivery | null;
}

/** What {@link retryDeadDeliveries} found and did. */
export interface RetryDeadResult {
  /** The dead deliveries that matched, in receipt order. */
  readonly matched: readonly DeliverySummary[];
  /** How many went back to pending (0 on a dry run). */
  readonly retried: number;
  /**
   * The matched deliveries that were no longer dead as listed when their turn came (retried by
   * someone else, run to `done` by a worker, dead again on a later attempt) and were left as they
   * are, with what each is now. Empty on a dry run.
   */
  readonly left: readonly LeftAsItIs[];
}

/** Dead deliveries read per page. */
const PAGE = 500;

/**
 * Every dead delivery of a filter back to pending, due now, with a fresh budget of failures, page
 * by page (a keyset on the delivery id); each write is a compare-and-set on the delivery as the
 * page listed it (dead, at its leases), so one that a worker or another retry changed meanwhile
 * is left as it is and reported in `left`.
 * @example
 * const { retried, left } = await retryDeadDeliveries(inbox, { provider: 'stripe', sinceMs: 86_400_000 });
 */
export async function retryDeadDeliveries(
  inbox: InboxOperatorStore,
  options: RetryDeadOptions = {},
): Promise<RetryDeadResult> {
  const now = options.now ?? Date.now();
  const recent = (d: DeliverySummary) =>
    options.sinceMs === undefined ||
    (d.finishedAt !== null && now - d.finishedAt.getTime() <= options.sinceMs);
  const matched: DeliverySummary[] = [];
  const left: LeftAsItIs[] = [];
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
      if (options.dryRun) continue;
      const seen = { status: 'dead', leases: leasesOf(d) } as const;
      if (await inbox.redeliver(d.provider, d.externalId, seen)) retried++;
      else left.push({ delivery: d, now: await inbox.find(d.provider, d.externalId) });
    }
    if (page.length < PAGE) return { matched, retried, left };
    afterId = page[page.length - 1]!.id;
  }
}
