/** @module IdempotencyGuard: claim, run, store, replay (DESIGN.md §3–§4, §7). */
import { windowsLongerThan } from './retention';
import { runUntilAborted } from './abort';
import { DAY, DeliveryOutcome, ReceiptStatus, SECOND } from './constants';
import { ConfigError, FingerprintMismatch, RequestInProgress, StoreError } from './errors';
import {
  fittedFingerprint,
  type GuardOptions,
  resolveGuardOptions,
  type RunOptions,
} from './guard-options';
import {
  type GroupMembers,
  type GroupOptions,
  type GroupResult,
  runReceiptGroup,
} from './receipt-group';
import { ReceiptWrites, type TicketEnv } from './receipt-writes';
import { RequestKey, type KeyLike } from './request-key';
import { storeCall } from './store-call';
import { type ClaimTicket, Ticket } from './ticket';
import { outcomeOf, type Trace, type Tracer, tracerFor } from './trace';
import type { Codec, ObservedReceipt, Outcome, Receipt, RunContext, Store } from './types';

/** The handler the guard runs at most once per claim. */
export type Handler<R, Tx> = (context: RunContext<Tx>) => R | Promise<R>;

/** A key's stored result, as {@link IdempotencyGuard.claim} answers a duplicate of a completed delivery. */
export interface Replay<R> extends Outcome<R> {
  readonly isReplay: true;
}

/** What {@link IdempotencyGuard.claim} resolves with: a ticket to settle, or the stored result. */
export type Claim<R, Tx = never> = ClaimTicket<R, Tx> | Replay<R>;

/** How many times `run` re-reads a receipt that keeps changing under it before answering "in progress". */
const MAX_ROUNDS = 3;

/**
 * Decides, for each delivery, whether the handler runs or the stored result is replayed.
 *
 * @example
 * const guard = new IdempotencyGuard(new InMemoryStore());
 * const outcome = await guard.run(new RequestKey('stripe', event.id), async () => {
 *   await markOrderPaid(event.data.object.id);
 *   return { received: true };
 * });
 * outcome.isReplay; // true on every delivery after the first completed one
 * @see docs/reference/configuration.md
 */
export class IdempotencyGuard<Tx = never, R = unknown> {
  readonly store: Store<Tx>;
  readonly staleAfterMs: number;
  private readonly clock: () => number;
  private readonly codec: Codec<R>;
  /** Whether `run` runs handlers in a store transaction by default (the `transactional` option). */
  readonly transactional: boolean;
  /** Transactional mode's deadline, in milliseconds. */
  readonly handlerTimeoutMs: number;
  /** @internal Where this guard's events are sent from: `SILENT` when nobody listens. */
  readonly tracer: Tracer;
  /** What every ticket of this guard shares. */
  private readonly env: TicketEnv<R, Tx>;

  constructor(store: Store<Tx>, options: GuardOptions<R> = {}) {
    const config = resolveGuardOptions(store, options);
    this.store = store;
    this.staleAfterMs = config.staleAfterMs;
    this.clock = config.clock;
    this.codec = config.codec;
    this.transactional = config.transactional;
    this.handlerTimeoutMs = config.handlerTimeoutMs;
    this.tracer = tracerFor(config.onEvent);
    const { clock, codec, handlerTimeoutMs } = config;
    this.env = { store, codec, clock, handlerTimeoutMs };
  }

  /**
   * Runs `handler` once per key: the first delivery runs it, every later delivery gets the stored
   * result (`isReplay: true`). A thin wrapper over {@link IdempotencyGuard.claim}: the handler runs
   * on the ticket, in a store transaction when `transactional`.
   *
   * @throws {RequestInProgress} another worker holds a fresh claim; the handler did not run.
   * @throws {FingerprintMismatch} the key was first seen with another fingerprint; the handler did not run.
   * @throws {ClaimLost} this run outlived its claim and another worker took over; its result was not recorded.
   * @throws {StoreError} the store failed; the handler did not run, or ran but its result could not be recorded.
   * @throws whatever the handler threw, after the receipt was marked `failed`.
   */
  async run<T extends R>(
    keyInput: KeyLike,
    handler: Handler<T, Tx>,
    options: RunOptions = {},
  ): Promise<Outcome<T>> {
    const transactional = options.transactional ?? this.transactional;
    if (transactional && !this.store.withTransaction) {
      throw new ConfigError('transactional', 'this store does not support transactions');
    }
    const started = this.tracer.now();
    const key = RequestKey.from(keyInput);
    const trace = this.tracer.open(key, started);
    let claim: Claim<T, Tx>;
    try {
      claim = await this.claimTraced<T>(key, options, trace);
    } catch (error) {
      trace.delivered(outcomeOf(error, false), undefined);
      throw error;
    }
    if (claim.isReplay) {
      trace.delivered(DeliveryOutcome.REPLAY, undefined);
      return claim;
    }
    const { context } = claim;
    let response: T;
    // false while the handler runs: what it throws is its own failure, whatever the error.
    let handled = transactional;
    try {
      if (transactional) {
        response = await claim.transaction(handler, { signal: options.signal });
      } else {
        response = await runUntilAborted(claim, handler, options.signal);
        handled = true;
        await claim.complete(response);
      }
    } catch (error) {
      trace.delivered(handled ? outcomeOf(error, true) : DeliveryOutcome.FAILED, undefined);
      throw error;
    }
    trace.delivered(DeliveryOutcome.FIRST, undefined);
    return { response, isReplay: false, attempts: context.attempts };
  }

  /**
   * Claims the key: resolves with a {@link ClaimTicket} when this caller is to do the work now
   * (a first delivery, a failed attempt or a stale claim taken over), or with the stored result
   * (`isReplay: true`) for a completed key. Settle a ticket exactly once: `complete(result)`,
   * `transaction(work)` or `fail(error)`. For code that cannot pass the work as a callback (an
   * HTTP engine, a queue consumer acknowledging later).
   *
   * @example
   * const claim = await guard.claim(new RequestKey('github', deliveryId));
   * if (claim.isReplay) return claim.response;
   * await claim.complete(await handlePush(payload));
   * @throws {RequestInProgress} another worker holds a fresh claim.
   * @throws {FingerprintMismatch} the key was first seen with another fingerprint.
   * @throws {StoreError} the store failed; nothing was claimed.
   */
  async claim<T extends R>(keyInput: KeyLike, options: RunOptions = {}): Promise<Claim<T, Tx>> {
    const key = RequestKey.from(keyInput);
    return this.claimTraced<T>(key, options, this.tracer.open(key, 0));
  }

  /**
   * @internal {@link IdempotencyGuard.claim} on the trace of a delivery whose `delivered` event the
   * caller reports (`run`, the HTTP engine); the ticket times its handler on the same trace.
   */
  async claimTraced<T extends R>(
    key: RequestKey,
    options: RunOptions,
    trace: Trace,
  ): Promise<Claim<T, Tx>> {
    const fingerprint = fittedFingerprint(options.fingerprint);
    const started = trace.now();
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const claim = await storeCall('claim', trace, () =>
        this.store.claim(key, { now: this.clock(), fingerprint }),
      );
      if (claim.won) {
        trace.claimed(claim.receipt.attempts, started);
        return this.ticket<T>(key, trace, claim.receipt, false);
      }

      const existing = claim.receipt;
      // Judged only against a live or final receipt: a failed attempt's body pins nothing (a forged
      // first delivery must not lock the genuine one out). A request without a fingerprint
      // matches a receipt that has one only when it was authenticated.
      if (
        existing.status !== ReceiptStatus.FAILED &&
        existing.fingerprint !== null &&
        existing.fingerprint !== fingerprint &&
        !(fingerprint === null && options.verified === true)
      ) {
        trace.mismatched(started);
        throw new FingerprintMismatch(key.provider, key.externalId);
      }
      if (existing.status === ReceiptStatus.COMPLETED)
        return this.replay<T>(trace, existing, started);
      if (existing.status === ReceiptStatus.PROCESSING && existing.claimAgeMs < this.staleAfterMs) {
        throw this.inProgress(key, trace, existing, started);
      }

      // failed, or processing with a stale claim: try to take it over (one conditional write).
      const taken = await storeCall('reclaim', trace, () =>
        this.store.reclaim(key, {
          now: this.clock(),
          attempts: existing.attempts,
          staleAfterMs: this.staleAfterMs,
          fingerprint,
        }),
      );
      if (taken) {
        trace.retried(taken.attempts, existing.status === ReceiptStatus.PROCESSING, started);
        return this.ticket<T>(key, trace, taken, true);
      }
      // Someone else moved the receipt on between our read and our write: look again.
    }
    throw this.inProgress(key, trace, undefined, started);
  }

  /**
   * True once the key's receipt is `completed`; false before, while processing and after a
   * failure. A plain read: it claims nothing.
   */
  async alreadyHandled(keyInput: KeyLike): Promise<boolean> {
    const receipt = await this.find(keyInput);
    return receipt?.status === ReceiptStatus.COMPLETED;
  }

  /** The key's receipt, or `null`. A plain read. */
  async find(keyInput: KeyLike): Promise<ObservedReceipt | null> {
    const key = RequestKey.from(keyInput);
    const trace = this.tracer.open(key, 0);
    return storeCall('find', trace, () => this.store.find(key, { now: this.clock() }));
  }

  /**
   * Deletes `completed` and `failed` receipts that finished more than `retentionDays` ago, never a
   * `processing` one. Size the retention to the provider's redelivery window (docs/providers.md);
   * with `provider`, only that provider's receipts are considered, so each provider sharing a
   * table can keep its own retention (a preset's `retentionDays`). A retention shorter than the
   * `retentionDays` of a preset an adapter serves on this store (its provider's retry window) is
   * refused for that provider's receipts, unless `force` is set: a redelivery after the purge
   * would run the handler again.
   * @throws {ConfigError} naming `retentionDays` when it is shorter than such a window.
   * @example
   * await guard.purge({ retentionDays: 30 });
   * await guard.purge({ provider: stripePreset.provider, retentionDays: stripePreset.retentionDays });
   * @returns how many receipts were deleted.
   */
  async purge(options: {
    retentionDays: number;
    batchSize?: number;
    provider?: string;
    /** Purge even receipts a preset on this store asks to keep longer. */
    force?: boolean;
  }): Promise<number> {
    const { retentionDays, batchSize, provider, force } = options ?? ({} as never);
    if (typeof retentionDays !== 'number' || !Number.isFinite(retentionDays) || retentionDays < 0) {
      throw new ConfigError(
        'retentionDays',
        `must be a number of days >= 0, got ${String(retentionDays)}`,
      );
    }
    if (batchSize !== undefined && (!Number.isSafeInteger(batchSize) || batchSize < 1)) {
      throw new ConfigError('batchSize', `must be a positive integer, got ${String(batchSize)}`);
    }
    if (provider !== undefined && (typeof provider !== 'string' || provider === '')) {
      throw new ConfigError('provider', `must be a provider name, got ${String(provider)}`);
    }
    const kept = force === true ? [] : windowsLongerThan(this.store, retentionDays, provider);
    if (kept.length > 0)
      throw new ConfigError(
        'retentionDays',
        `${retentionDays} days is shorter than the retry window of ${kept.map(([name, days]) => `${name} (${days} days)`).join(', ')}: a redelivery after the purge would run again. Purge each provider with its preset's retentionDays, or pass force: true`,
      );
    return storeCall('purge', this.tracer, () =>
      this.store.purge({
        now: this.clock(),
        olderThanMs: retentionDays * DAY,
        ...(batchSize ? { batchSize } : {}),
        ...(provider !== undefined ? { provider } : {}),
      }),
    );
  }

  private ticket<T extends R>(
    key: RequestKey,
    trace: Trace,
    claim: Pick<Receipt, 'attempts' | 'claimedAt'>,
    isRetry: boolean,
  ): ClaimTicket<T, Tx> {
    // A ticket for T settles through the guard's codec for R (T extends R).
    const env = this.env as unknown as TicketEnv<T, Tx>;
    return new Ticket<T, Tx>(new ReceiptWrites(env, trace, key, claim), isRetry);
  }

  private replay<T>(trace: Trace, receipt: ObservedReceipt, started: number): Replay<T> {
    let response: T;
    try {
      response = this.codec.decode(receipt.response ?? 'null') as unknown as T;
    } catch (error) {
      throw new StoreError('replay (the stored response could not be decoded)', error);
    }
    trace.replayed(receipt.attempts, started);
    return { response, isReplay: true, attempts: receipt.attempts };
  }

  private inProgress(
    key: RequestKey,
    trace: Trace,
    receipt: ObservedReceipt | undefined,
    started: number,
  ): RequestInProgress {
    const leftMs = receipt ? this.staleAfterMs - receipt.claimAgeMs : 0;
    const retryAfterSeconds = Math.max(1, Math.ceil(leftMs / SECOND));
    trace.inProgress(receipt?.attempts ?? 0, retryAfterSeconds, started);
    return new RequestInProgress(key.provider, key.externalId, retryAfterSeconds);
  }

  /**
   * @internal Runs first runs of `keys` as one group in a transaction of the store, their
   * receipts recorded together by the Store contract's group operations, each result stored with
   * this guard's codec: what the inbox worker's groups run through. See {@link runReceiptGroup}.
   */
  group<W>(
    keys: readonly KeyLike[],
    work: (members: GroupMembers<Tx>) => Promise<void>,
    options?: GroupOptions<Tx, W>,
  ): Promise<GroupResult<W>> {
    return runReceiptGroup({ ...this.env, tracer: this.tracer }, keys, work, options);
  }
}
