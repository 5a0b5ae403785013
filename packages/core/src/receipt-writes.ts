/**
 * @module ReceiptWrites: the two writes that settle a won claim's receipt, `completed` and
 * `failed`, each fenced by the claim's attempt so that a claim taken over writes nothing. A
 * ticket settles through them, and so does its open transaction.
 */
import { ClaimLost, errorText } from './errors';
import type { RequestKey } from './request-key';
import { storeCall } from './store-call';
import type { Trace } from './trace';
import type { Codec, Receipt, Store } from './types';

/** What every claim of a guard shares: the store, the codec, the clock, the handler deadline. */
export interface TicketEnv<R, Tx> {
  readonly store: Store<Tx>;
  readonly codec: Codec<R>;
  readonly clock: () => number;
  readonly handlerTimeoutMs: number;
}

/** Retries of a `fail` write that met a store error, so a receipt does not sit `processing` until stale. */
const FAIL_RETRY_DELAYS_MS = [250, 1000, 4000] as const;

/** The fenced writes of one won claim, and the trace of its delivery. */
export class ReceiptWrites<R, Tx> {
  readonly attempts: number;
  private readonly claimedAt: Date;

  constructor(
    readonly env: TicketEnv<R, Tx>,
    readonly trace: Trace,
    readonly key: RequestKey,
    claim: Pick<Receipt, 'attempts' | 'claimedAt'>,
  ) {
    this.attempts = claim.attempts;
    this.claimedAt = claim.claimedAt;
  }

  /**
   * Writes `completed` with the encoded `response`, joining `transaction` when given.
   * @throws {ClaimLost} the claim was taken over; nothing was written.
   * @throws {StoreError} the store failed.
   */
  async complete(response: string, transaction?: Tx): Promise<void> {
    const { env, key, attempts, claimedAt, trace } = this;
    const started = trace.now();
    const ok = await storeCall('complete', trace, () =>
      env.store.complete(key, { now: env.clock(), attempts, claimedAt, response }, transaction),
    );
    if (!ok) {
      trace.claimLost('complete', started);
      throw new ClaimLost(key.provider, key.externalId, attempts);
    }
  }

  /**
   * Writes `failed` with the text of `cause`. Best effort: the caller rethrows the work's error
   * whatever happens here. A store error is retried a few times in the background (the database
   * may be restarting), so the receipt does not sit `processing` until `staleAfterSeconds`; the
   * write is fenced, so a late retry cannot touch a newer claim.
   */
  async fail(cause: unknown, retry = 0): Promise<void> {
    const { env, key, attempts, claimedAt, trace } = this;
    const error = errorText(cause);
    const started = trace.now();
    try {
      const ok = await env.store.fail(key, { now: env.clock(), attempts, claimedAt, error });
      if (ok) trace.failed(error, started);
      else trace.claimLost('fail', started);
    } catch (storeError) {
      trace.storeError('fail', storeError, started);
      const delay = FAIL_RETRY_DELAYS_MS[retry];
      if (delay !== undefined) setTimeout(() => void this.fail(cause, retry + 1), delay).unref?.();
    }
  }
}
