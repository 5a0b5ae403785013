/**
 * @module A claim the store did not grant at once. The receipt already there is judged (another
 * fingerprint, a completed result to replay, a fresh claim still running) or, failed or stale,
 * taken over with one conditional write; a receipt that keeps moving under it is read again a
 * few times before the answer is "in progress". A first delivery never comes here: the guard
 * turns a won claim into its ticket itself, without this step's promise.
 */
import { ReceiptStatus, SECOND } from './constants';
import { FingerprintMismatch, RequestInProgress } from './errors';
import type { RequestKey } from './request-key';
import { storeFailure } from './store-call';
import { Ticket, type TicketEnv } from './ticket';
import type { Trace } from './trace';
import type { ObservedReceipt } from './types';

/** What a claim needs of its guard: the tickets' shared parts, and when a claim goes stale. */
export interface ClaimEnv<R, Tx> extends TicketEnv<R, Tx> {
  readonly staleAfterMs: number;
}

/** How many times a claim re-reads a receipt that keeps changing under it before answering "in progress". */
const MAX_ROUNDS = 3;

/**
 * The claim of `key` after the store answered with the receipt `first` (not won): a
 * {@link Ticket} when a failed or stale receipt was taken over, or the completed receipt.
 * @throws {FingerprintMismatch} the receipt was made by a request with another fingerprint.
 * @throws {RequestInProgress} a fresh claim holds it, or it kept moving under us.
 * @throws {StoreError} the store failed.
 */
export async function contest<R, Tx>(
  env: ClaimEnv<R, Tx>,
  key: RequestKey,
  first: ObservedReceipt,
  fingerprint: string | null,
  verified: boolean,
  trace: Trace,
  since: number,
): Promise<Ticket<R, Tx> | ObservedReceipt> {
  let existing = first;
  for (let round = 1; ; round++) {
    // Judged only against a live or final receipt: a failed attempt's body pins nothing (a forged
    // first delivery must not lock the genuine one out). A request without a fingerprint
    // matches a receipt that has one only when it was authenticated.
    if (
      existing.status !== ReceiptStatus.FAILED &&
      existing.fingerprint !== null &&
      existing.fingerprint !== fingerprint &&
      !(fingerprint === null && verified)
    ) {
      trace.mismatched(since);
      throw new FingerprintMismatch(key.provider, key.externalId);
    }
    if (existing.status === ReceiptStatus.COMPLETED) return existing;
    if (existing.status === ReceiptStatus.PROCESSING && existing.claimAgeMs < env.staleAfterMs) {
      throw inProgress(env, key, trace, existing, since);
    }
    // failed, or processing with a stale claim: try to take it over (one conditional write).
    const taken = await takeOver(env, key, existing, fingerprint, trace, since);
    if (taken) {
      trace.retried(taken.attempts, existing.status === ReceiptStatus.PROCESSING, since);
      return new Ticket<R, Tx>(env, trace, key, taken, true);
    }
    // Someone else moved the receipt on between our read and our write: look again.
    if (round === MAX_ROUNDS) throw inProgress(env, key, trace, undefined, since);
    let claim: Awaited<ReturnType<typeof env.store.claim>>;
    try {
      claim = await env.store.claim(key, { now: env.clock(), fingerprint });
    } catch (error) {
      throw storeFailure('claim', error, trace, since);
    }
    if (claim.won) return won(env, key, claim.receipt, trace, since);
    existing = claim.receipt;
  }
}

/** The ticket of a claim the store granted: reports `claimed`. */
export function won<R, Tx>(
  env: TicketEnv<R, Tx>,
  key: RequestKey,
  receipt: ObservedReceipt,
  trace: Trace,
  since: number,
): Ticket<R, Tx> {
  trace.claimed(receipt.attempts, since);
  return new Ticket<R, Tx>(env, trace, key, receipt, false);
}

/** Takes over a failed or stale receipt (one conditional write): the new receipt, or `null` when another worker moved it on. */
async function takeOver<R, Tx>(
  env: ClaimEnv<R, Tx>,
  key: RequestKey,
  existing: ObservedReceipt,
  fingerprint: string | null,
  trace: Trace,
  since: number,
): Promise<ObservedReceipt | null> {
  const { attempts } = existing;
  try {
    return await env.store.reclaim(key, {
      now: env.clock(),
      attempts,
      staleAfterMs: env.staleAfterMs,
      fingerprint,
    });
  } catch (error) {
    throw storeFailure('reclaim', error, trace, since);
  }
}

/** The "in progress" answer, with how long until the claim holding the key goes stale; reports `in-progress`. */
function inProgress<R, Tx>(
  env: ClaimEnv<R, Tx>,
  key: RequestKey,
  trace: Trace,
  receipt: ObservedReceipt | undefined,
  started: number,
): RequestInProgress {
  const leftMs = receipt ? env.staleAfterMs - receipt.claimAgeMs : 0;
  const retryAfterSeconds = Math.max(1, Math.ceil(leftMs / SECOND));
  trace.inProgress(receipt?.attempts ?? 0, retryAfterSeconds, started);
  return new RequestInProgress(key.provider, key.externalId, retryAfterSeconds);
}
