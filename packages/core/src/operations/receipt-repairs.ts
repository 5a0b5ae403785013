/**
 * @module The receipt repairs an operator asks for, written once over a small contract
 * ({@link ReceiptRepairs}: a read and two fenced writes) that every receipts admin implements
 * (`ReceiptsAdmin` on a SQL table, the dashboard's admin of an `InMemoryStore`): release a stuck
 * claim, so that the next delivery runs the handler again; forget a finished receipt, so that a
 * deliberate redelivery runs it again. Each write is a compare-and-set on the claim the operator
 * saw (its attempts and claim time): a receipt taken over, finished or claimed again since is left
 * as it is, and the result says what it is now.
 */
import { ReceiptStatus, SECOND } from '../constants';
import { ConfigError } from '../errors';
import { positiveAmount } from '../positive-amount';
import type { KeyLike } from '../request-key';
import type { ObservedReceipt } from '../types';

/** A claim as an operator saw it: a repair given it changes the receipt only while it is still this claim. */
export interface ExpectedClaim {
  readonly attempts: number;
  /** Its claim time, to the millisecond (as `find` and `list` return it). */
  readonly claimedAt: Date;
}

/**
 * What the receipt repairs need of a receipts table: a read and two writes, each fenced on a
 * claim (`attempts` and `claimedAt`, to the millisecond), so that a claim taken over since is
 * never touched.
 */
export interface ReceiptRepairs {
  /** The receipt of `key`, with its store's view of its age; `null` when none. */
  find(key: KeyLike): Promise<ObservedReceipt | null>;
  /**
   * Marks the receipt `failed` with `error` if it is still `processing` under `claim`. One
   * conditional write; `true` when it wrote.
   */
  failClaim(key: KeyLike, claim: ExpectedClaim, error: string): Promise<boolean>;
  /**
   * Deletes the receipt if it is `completed` or `failed` under `claim`; never a `processing` one.
   * One conditional write; `true` when it deleted.
   */
  forgetClaim(key: KeyLike, claim: ExpectedClaim): Promise<boolean>;
}

/** Options of {@link releaseReceipt} (and `ReceiptsAdmin.release`). */
export interface ReleaseOptions {
  /** A `processing` claim younger than this is refused (`'fresh'`) unless `force` is set. */
  readonly staleAfterMs: number;
  /** Release a fresh claim too: its worker, if alive, will find its result refused. Defaults to `false`. */
  readonly force?: boolean;
  /** The text stored as the receipt's `error`. Defaults to a note that it was released by hand. */
  readonly error?: string;
  /**
   * The claim the operator was shown (a confirmation page's): a receipt taken over or finished
   * since is left as it is (`changed`). Without it, the claim read first stands for it.
   */
  readonly expected?: ExpectedClaim;
}

/** Options of {@link forgetReceipt} (and `ReceiptsAdmin.forget`). */
export interface ForgetOptions {
  /** The claim the operator was shown: a receipt claimed again since is left as it is (`changed`). */
  readonly expected?: ExpectedClaim;
}

/**
 * What {@link releaseReceipt} did. `released: false` changed nothing:
 * - `not-found`: no receipt has that key;
 * - `not-processing`: it is `completed` or `failed` already;
 * - `fresh`: its claim is younger than the stale threshold (a worker may be running it);
 * - `changed`: it is no longer the claim the operator saw (taken over, or finished): `receipt` is
 *   what it is now.
 */
export type ReleaseResult =
  | { readonly released: true; readonly receipt: ObservedReceipt }
  | { readonly released: false; readonly reason: 'not-found'; readonly receipt: null }
  | {
      readonly released: false;
      readonly reason: 'not-processing' | 'fresh' | 'changed';
      readonly receipt: ObservedReceipt;
    };

/**
 * What {@link forgetReceipt} did. `forgotten: true` carries the receipt as it was before the
 * delete; `forgotten: false` changed nothing:
 * - `not-found`: no receipt has that key (never stored, or purged);
 * - `processing`: a worker holds it (wait, or release a stuck one first);
 * - `changed`: it is no longer the claim the operator saw (claimed again): `receipt` is what it is now.
 */
export type ForgetResult =
  | { readonly forgotten: true; readonly receipt: ObservedReceipt }
  | { readonly forgotten: false; readonly reason: 'not-found'; readonly receipt: null }
  | {
      readonly forgotten: false;
      readonly reason: 'processing' | 'changed';
      readonly receipt: ObservedReceipt;
    };

/**
 * True when `receipt` is still the claim `expected` names (or nothing was expected).
 * @throws {ConfigError} naming `expected.claimedAt` when it is not a valid Date.
 */
export function isClaimSeen(
  receipt: ObservedReceipt,
  expected: ExpectedClaim | undefined,
): boolean {
  if (expected === undefined) return true;
  const { claimedAt } = expected;
  if (!(claimedAt instanceof Date) || Number.isNaN(claimedAt.getTime()))
    throw new ConfigError('expected.claimedAt', `must be a valid Date, got ${String(claimedAt)}`);
  return (
    receipt.attempts === expected.attempts && receipt.claimedAt.getTime() === claimedAt.getTime()
  );
}

/** The receipt of `key` as it is now, as the answer of a write that found it changed (or gone). */
async function changedSince<T>(
  repairs: ReceiptRepairs,
  key: KeyLike,
  refused: (receipt: ObservedReceipt) => T,
  gone: T,
): Promise<T> {
  const after = await repairs.find(key);
  return after ? refused(after) : gone;
}

/**
 * Releases a stuck claim: marks its `processing` receipt `failed`, so that the provider's next
 * delivery runs the handler again (the guard takes failed receipts over). The write is a
 * compare-and-set on the claim the operator saw (`expected`, else the one just read): a receipt
 * taken over since, or finished between the read and the write, is left alone (`changed`); one that
 * is no longer `processing` when read is refused (`not-processing`). A claim younger than
 * `staleAfterMs` is refused (`fresh`) unless `force`: its worker may be alive, and would then find
 * its result refused (claim lost).
 * @throws {ConfigError} naming `staleAfterMs` or `expected.claimedAt` when it is not valid.
 * @example
 * const result = await releaseReceipt(admin, key, { staleAfterMs: 300_000 });
 */
export async function releaseReceipt(
  repairs: ReceiptRepairs,
  key: KeyLike,
  options: ReleaseOptions,
): Promise<ReleaseResult> {
  const staleAfterMs = positiveAmount('staleAfterMs', options.staleAfterMs, 'milliseconds');
  const receipt = await repairs.find(key);
  if (!receipt) return { released: false, reason: 'not-found', receipt: null };
  if (!isClaimSeen(receipt, options.expected))
    return { released: false, reason: 'changed', receipt };
  if (receipt.status !== ReceiptStatus.PROCESSING)
    return { released: false, reason: 'not-processing', receipt };
  if (receipt.claimAgeMs < staleAfterMs && options.force !== true)
    return { released: false, reason: 'fresh', receipt };
  const error =
    options.error ??
    `released by hand after ${Math.round(receipt.claimAgeMs / SECOND)}s in processing (attempt ${receipt.attempts})`;
  const written = await repairs.failClaim(key, receipt, error);
  const after = await repairs.find(key);
  if (written && after) return { released: true, receipt: after };
  return after
    ? { released: false, reason: 'changed', receipt: after }
    : { released: false, reason: 'not-found', receipt: null };
}

/**
 * Forgets one finished (`completed` or `failed`) receipt, so that the next run of its key runs the
 * handler again instead of replaying the stored answer: what a deliberate redelivery of a handled
 * inbox delivery needs. Never a `processing` one (a worker holds it: `processing`). The delete is a
 * compare-and-set on the claim the operator saw (`expected`, else the one just read): a receipt
 * claimed again since is left alone (`changed`). Resolves with the receipt as it was.
 * @throws {ConfigError} naming `expected.claimedAt` when it is not a valid Date.
 * @example
 * const { forgotten } = await forgetReceipt(admin, { provider: 'stripe', externalId: 'evt_1' });
 */
export async function forgetReceipt(
  repairs: ReceiptRepairs,
  key: KeyLike,
  options: ForgetOptions = {},
): Promise<ForgetResult> {
  const receipt = await repairs.find(key);
  if (!receipt) return { forgotten: false, reason: 'not-found', receipt: null };
  if (!isClaimSeen(receipt, options.expected))
    return { forgotten: false, reason: 'changed', receipt };
  if (receipt.status === ReceiptStatus.PROCESSING)
    return { forgotten: false, reason: 'processing', receipt };
  if (await repairs.forgetClaim(key, receipt)) return { forgotten: true, receipt };
  return changedSince<ForgetResult>(
    repairs,
    key,
    (now) => ({ forgotten: false, reason: 'changed', receipt: now }),
    { forgotten: false, reason: 'not-found', receipt: null },
  );
}

/**
 * A receipts admin's two repairs, written once: extend it, give the store's side as `repairs` (a
 * read and two fenced writes), and `release` and `forget` are {@link releaseReceipt} and
 * {@link forgetReceipt} over it. `ReceiptsAdmin` (a SQL table) and the dashboard's admin of an
 * `InMemoryStore` are built this way.
 * @example
 * class MyAdmin extends RepairableReceipts {
 *   protected readonly repairs: ReceiptRepairs = { find, failClaim, forgetClaim };
 * }
 */
export abstract class RepairableReceipts {
  /** The store's side of the repairs: a read and its two fenced writes. */
  protected abstract readonly repairs: ReceiptRepairs;

  /**
   * Releases a stuck claim: marks its `processing` receipt `failed`, so that the provider's next
   * delivery runs the handler again ({@link releaseReceipt}, over this admin's fenced write). A
   * receipt taken over since the claim the operator saw is left alone (`changed`), one no longer
   * `processing` is refused (`not-processing`), and a claim younger than `staleAfterMs` is refused
   * (`fresh`) unless `force`.
   * @throws {ConfigError} naming `staleAfterMs` or `expected.claimedAt` when it is not valid.
   * @example
   * const result = await admin.release(key, { staleAfterMs: 300_000 });
   */
  release(key: KeyLike, options: ReleaseOptions): Promise<ReleaseResult> {
    return releaseReceipt(this.repairs, key, options);
  }

  /**
   * Forgets one finished (`completed` or `failed`) receipt, so that the next run of its key runs
   * the handler again instead of replaying the stored answer ({@link forgetReceipt}, over this
   * admin's fenced delete). Never a `processing` one; a receipt claimed again since the claim the
   * operator saw is left alone (`changed`). Resolves with the receipt as it was.
   * @throws {ConfigError} naming `expected.claimedAt` when it is not a valid Date.
   * @example
   * const { forgotten } = await admin.forget({ provider: 'stripe', externalId: 'evt_1' });
   */
  forget(key: KeyLike, options: ForgetOptions = {}): Promise<ForgetResult> {
    return forgetReceipt(this.repairs, key, options);
  }
}
