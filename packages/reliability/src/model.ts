/** @module The reference model of the receipt lifecycle the property test checks the guard against. */

/** Where a model receipt is in its lifecycle. */
export type ModelStatus = 'processing' | 'completed' | 'failed';

/** One receipt as the model expects the store to hold it. */
export interface ModelReceipt {
  readonly status: ModelStatus;
  /** Handler starts for this receipt; the fencing token. */
  readonly attempts: number;
  readonly fingerprint: string | null;
  /** The completing handler's value (not encoded); `null` until completed. */
  readonly value: unknown;
  /** The last failure's text; `null` unless failed. */
  readonly error: string | null;
  /** Model clock when the current claim was taken. */
  readonly claimedAt: number;
  /**
   * Identity of the current claim, unique over the model's whole life (unlike `attempts`, which
   * starts again at 1 when a purged key is claimed anew). The model fences on it: a worker owns the
   * receipt only while its claim is the current one.
   */
  readonly claim: number;
  /** Model clock when the receipt became completed or failed; `null` while processing. */
  readonly finishedAt: number | null;
}

/** What the guard must do with one delivery, according to the model. */
export type Decision =
  /** The handler runs: a first claim (`isRetry: false`) or a takeover of a failed/stale receipt. */
  | {
      readonly kind: 'run';
      readonly attempts: number;
      readonly isRetry: boolean;
      readonly claim: number;
    }
  /** The stored value is returned; the handler does not run. */
  | { readonly kind: 'replay'; readonly value: unknown; readonly attempts: number }
  /** Another worker holds a fresh claim: `RequestInProgress` with this `retryAfterSeconds`. */
  | { readonly kind: 'in-progress'; readonly retryAfterSeconds: number }
  /** The key was claimed by another payload: `FingerprintMismatch`. */
  | { readonly kind: 'mismatch' };

/** A delivery as the model sees it. */
export interface Delivery {
  readonly key: string;
  /** The request's fingerprint; `null` for a request without a body. */
  readonly fingerprint: string | null;
  /** The request was authenticated (a signature passed), so a body-less request may be answered from a fingerprinted receipt. */
  readonly verified: boolean;
}

/**
 * The receipt lifecycle, written as plainly as possible and without any concurrency: the
 * specification the real guard and store are compared with after every step. Keys are opaque
 * strings; the clock is the model's own and only moves forward.
 *
 * Rules it encodes:
 * - a key without a receipt is claimed (`attempts = 1`) and the handler runs;
 * - a `completed` receipt never changes and is replayed with the stored value;
 * - a `failed` receipt is taken over by the next delivery (`attempts + 1`), which records its own fingerprint;
 * - a `processing` receipt is "in progress" until its claim is `staleAfterMs` old, then taken over (`attempts + 1`);
 * - a fingerprint mismatch is judged only against `processing` and `completed` receipts that have a
 *   fingerprint; a request without one matches such a receipt only when verified (§10);
 * - completion and failure are fenced by the claim the worker holds: a worker whose claim was taken
 *   over (or whose receipt was purged and claimed anew) changes nothing;
 * - purge deletes `completed`/`failed` receipts finished at or before `now - olderThanMs`, never `processing` ones.
 */
export class ReceiptModel {
  /** Model clock, milliseconds since the epoch. */
  now: number;
  readonly staleAfterMs: number;
  private readonly receipts = new Map<string, ModelReceipt>();
  private claims = 0;

  constructor(options: { readonly now: number; readonly staleAfterMs: number }) {
    this.now = options.now;
    this.staleAfterMs = options.staleAfterMs;
  }

  /** The receipt the store must hold for `key`, or `undefined`. */
  receipt(key: string): ModelReceipt | undefined {
    return this.receipts.get(key);
  }

  /** Moves the clock forward by `ms` (never backward). */
  advance(ms: number): void {
    if (!(ms >= 0)) throw new RangeError(`the model clock only moves forward, got ${ms}`);
    this.now += ms;
  }

  /** True when a `processing` receipt's claim is at least `staleAfterMs` old. */
  isStale(receipt: ModelReceipt): boolean {
    return receipt.status === 'processing' && this.now - receipt.claimedAt >= this.staleAfterMs;
  }

  /** What the guard must answer `delivery` with, without changing anything. */
  decide(delivery: Delivery): Decision {
    const existing = this.receipts.get(delivery.key);
    if (!existing) return { kind: 'run', attempts: 1, isRetry: false, claim: this.claims + 1 };
    if (
      existing.status !== 'failed' &&
      existing.fingerprint !== null &&
      existing.fingerprint !== delivery.fingerprint &&
      !(delivery.fingerprint === null && delivery.verified)
    ) {
      return { kind: 'mismatch' };
    }
    if (existing.status === 'completed')
      return { kind: 'replay', value: existing.value, attempts: existing.attempts };
    if (existing.status === 'processing' && !this.isStale(existing)) {
      const leftMs = this.staleAfterMs - (this.now - existing.claimedAt);
      return { kind: 'in-progress', retryAfterSeconds: Math.max(1, Math.ceil(leftMs / 1000)) };
    }
    return { kind: 'run', attempts: existing.attempts + 1, isRetry: true, claim: this.claims + 1 };
  }

  /** Applies `delivery`: on a `run` decision the key is claimed (or taken over) now. Returns the decision. */
  deliver(delivery: Delivery): Decision {
    const decision = this.decide(delivery);
    if (decision.kind === 'run') {
      this.claims = decision.claim;
      this.receipts.set(delivery.key, {
        status: 'processing',
        attempts: decision.attempts,
        fingerprint: delivery.fingerprint,
        value: null,
        error: null,
        claimedAt: this.now,
        finishedAt: null,
        claim: decision.claim,
      });
    }
    return decision;
  }

  /** True when `claim` is still the live claim on `key` (the fence `complete`/`fail` must pass). */
  owns(key: string, claim: number): boolean {
    const receipt = this.receipts.get(key);
    return receipt !== undefined && receipt.status === 'processing' && receipt.claim === claim;
  }

  /** The worker holding `claim` returned `value`: completes the receipt when it still owns it. */
  complete(key: string, claim: number, value: unknown): boolean {
    const receipt = this.receipts.get(key);
    if (!receipt || !this.owns(key, claim)) return false;
    this.receipts.set(key, { ...receipt, status: 'completed', value, finishedAt: this.now });
    return true;
  }

  /** The worker holding `claim` threw `error`: fails the receipt when it still owns it. */
  fail(key: string, claim: number, error: string): boolean {
    const receipt = this.receipts.get(key);
    if (!receipt || !this.owns(key, claim)) return false;
    this.receipts.set(key, { ...receipt, status: 'failed', error, finishedAt: this.now });
    return true;
  }

  /** Deletes finished receipts older than the cut-off (of keys `inScope` accepts); returns the deleted keys. */
  purge(olderThanMs: number, inScope: (key: string) => boolean = () => true): string[] {
    const cutoff = this.now - olderThanMs;
    const deleted: string[] = [];
    for (const [key, receipt] of this.receipts) {
      if (!inScope(key) || receipt.status === 'processing' || receipt.finishedAt === null) continue;
      if (receipt.finishedAt <= cutoff) deleted.push(key);
    }
    for (const key of deleted) this.receipts.delete(key);
    return deleted;
  }
}
