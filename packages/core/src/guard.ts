/**
 * @module IdempotencyGuard: claim, run, store, replay. A delivery is claimed with one store call
 * awaited once (no wrapper per call), settled on its {@link Ticket}, and ends with one `delivered`
 * event reported in one place of `run` (the HTTP engine reports its own deliveries). A replay
 * hands back the completed receipt itself: the caller decodes its stored text once, as its own
 * kind of result (the guard's codec for `run` and `claim`, the HTTP answer for the engine).
 */
import { runUntilAborted } from './abort';
import { type ClaimEnv, contest, won } from './claim-contest';
import { DeliveryOutcome, ReceiptStatus } from './constants';
import { ConfigError, StoreError } from './errors';
import {
  checkPurgeOptions,
  fittedFingerprint,
  type GuardOptions,
  type GuardPurgeOptions,
  isJsonCodec,
  resolveGuardOptions,
  type RunOptions,
} from './guard-options';
import {
  type GroupMembers,
  type GroupOptions,
  type GroupResult,
  runReceiptGroup,
} from './receipt-group';
import { RequestKey, type KeyLike } from './request-key';
import { storeFailure } from './store-call';
import { type ClaimTicket, Ticket } from './ticket';
import { outcomeOf, type Trace, type Tracer, tracerFor } from './trace';
import type { ClaimResult, Codec, ObservedReceipt, Outcome, RunContext, Store } from './types';

/** The handler the guard runs at most once per claim. */
export type Handler<R, Tx> = (context: RunContext<Tx>) => R | Promise<R>;

/** A key's stored result, as {@link IdempotencyGuard.claim} answers a duplicate of a completed delivery. */
export interface Replay<R> extends Outcome<R> {
  readonly isReplay: true;
}

/** What {@link IdempotencyGuard.claim} resolves with: a ticket to settle, or the stored result. */
export type Claim<R, Tx = never> = ClaimTicket<R, Tx> | Replay<R>;

/** The options of a call that passed none: one shared object, not a new one per call. */
const NO_OPTIONS: RunOptions = Object.freeze({});

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
  /** @internal Results are stored with the default JSON codec: an HTTP answer is then written as its JSON text directly. */
  readonly jsonCodec: boolean;
  /** What every claim and ticket of this guard shares. */
  private readonly env: ClaimEnv<R, Tx>;

  constructor(store: Store<Tx>, options: GuardOptions<R> = {}) {
    const config = resolveGuardOptions(store, options);
    this.store = store;
    this.staleAfterMs = config.staleAfterMs;
    this.clock = config.clock;
    this.codec = config.codec;
    this.jsonCodec = isJsonCodec(config.codec);
    this.transactional = config.transactional;
    this.handlerTimeoutMs = config.handlerTimeoutMs;
    this.tracer = tracerFor(config.onEvent);
    const { clock, codec, handlerTimeoutMs, staleAfterMs, effectKeys } = config;
    const encode = (value: R) => codec.encode(value);
    this.env = { store, encode, clock, handlerTimeoutMs, staleAfterMs, effectKeys };
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
    options: RunOptions = NO_OPTIONS,
  ): Promise<Outcome<T>> {
    const transactional = options.transactional ?? this.transactional;
    if (transactional && !this.store.withTransaction)
      throw new ConfigError('transactional', 'this store does not support transactions');
    const started = this.tracer.now();
    const key = RequestKey.from(keyInput);
    const trace = this.tracer.open(key, started);
    let outcome: DeliveryOutcome | undefined;
    // Where the run is when it fails: what its failure is taken to be.
    let stage: 'claim' | 'handler' | 'record' = 'claim';
    try {
      const since = trace.now();
      const fingerprint = fittedFingerprint(options.fingerprint);
      let first: ClaimResult;
      try {
        first = await this.store.claim(key, { now: this.clock(), fingerprint });
      } catch (error) {
        throw storeFailure('claim', error, trace, since);
      }
      const verified = options.verified === true;
      const claimed = this.settle<T>(first, key, fingerprint, verified, trace, since);
      const claim = claimed instanceof Ticket ? claimed : await claimed;
      if (!(claim instanceof Ticket)) {
        const replay = this.replayOf<T>(claim, trace, since);
        outcome = DeliveryOutcome.REPLAY;
        return replay;
      }
      let response: T;
      if (transactional) {
        stage = 'record';
        response = await claim.transaction(handler, { signal: options.signal });
      } else {
        stage = 'handler';
        const { signal } = options;
        if (signal) response = await runUntilAborted(claim, handler, signal);
        else {
          try {
            response = await handler(claim.context);
          } catch (error) {
            await claim.fail(error);
            throw error;
          }
        }
        stage = 'record';
        await claim.complete(response);
      }
      outcome = DeliveryOutcome.FIRST;
      return { response, isReplay: false, attempts: claim.context.attempts };
    } catch (error) {
      outcome = stage === 'handler' ? DeliveryOutcome.FAILED : outcomeOf(error, stage === 'record');
      throw error;
    } finally {
      // The one `delivered` event of this run, however it ended.
      trace.delivered(outcome, undefined);
    }
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
  async claim<T extends R>(
    keyInput: KeyLike,
    options: RunOptions = NO_OPTIONS,
  ): Promise<Claim<T, Tx>> {
    const key = RequestKey.from(keyInput);
    const trace = this.tracer.open(key, 0);
    const since = trace.now();
    const { fingerprint, verified } = options;
    const claim = await this.claimTraced<T>(key, fingerprint, verified === true, trace, since);
    return claim instanceof Ticket ? claim : this.replayOf<T>(claim, trace, since);
  }

  /**
   * @internal {@link IdempotencyGuard.claim} on the trace of a delivery whose `delivered` event the
   * caller reports (`run`, the HTTP engine), started at `since`: a {@link Ticket} (which times its
   * handler on the same trace), or the completed receipt, whose stored text the caller decodes
   * (and then reports `replayed`). A fingerprint that is not a string fails as a `ConfigError`.
   */
  claimTraced<T extends R>(
    key: RequestKey,
    fingerprintInput: unknown,
    verified: boolean,
    trace: Trace,
    since: number,
  ): Promise<Ticket<T, Tx> | ObservedReceipt> {
    let fingerprint: string | null;
    let claimed: Promise<ClaimResult>;
    try {
      fingerprint = fittedFingerprint(fingerprintInput);
    } catch (error) {
      return Promise.reject(error);
    }
    try {
      // A store's own promise passes through as it is; a store that answers with a plain value
      // (a hand-written one) still settles through the same reaction.
      claimed = Promise.resolve(this.store.claim(key, { now: this.clock(), fingerprint }));
    } catch (error) {
      return Promise.reject(storeFailure('claim', error, trace, since));
    }
    // One reaction on the store's own promise: no async function around it.
    return claimed.then(
      (first) => this.settle<T>(first, key, fingerprint, verified, trace, since),
      (error: unknown) => {
        throw storeFailure('claim', error, trace, since);
      },
    );
  }

  /**
   * The ticket of a claim the store granted, else the contest over the receipt it found (a
   * promise). `run` awaits the store's claim itself and then this: a won claim costs no promise
   * of its own.
   */
  private settle<T extends R>(
    first: ClaimResult,
    key: RequestKey,
    fingerprint: string | null,
    verified: boolean,
    trace: Trace,
    since: number,
  ): Ticket<T, Tx> | Promise<Ticket<T, Tx> | ObservedReceipt> {
    if (first.won) return won<T, Tx>(this.env, key, first.receipt, trace, since);
    return contest<T, Tx>(this.env, key, first.receipt, fingerprint, verified, trace, since);
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
    const since = trace.now();
    try {
      return await this.store.find(key, { now: this.clock() });
    } catch (error) {
      throw storeFailure('find', error, trace, since);
    }
  }

  /**
   * The key a handler of this guard gets from `effectKey(name)` on the receipt `key` (under this
   * guard's `effectKeyNamespace`), for code outside a handler: a reconciliation script looking up
   * the refund a run made with it (docs/side-effects.md).
   * @example guard.effectKey({ provider: 'stripe', externalId: 'evt_1' }, 'refund')
   * @throws {InvalidRequestKey} `key` is not a valid key.
   * @throws {IdempotencyError} `ERR_IDEMPOTENCY_EFFECT_NAME_INVALID`: `name` cannot make a key.
   */
  effectKey(key: KeyLike, name: string): string {
    return this.env.effectKeys(RequestKey.from(key))(name);
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
  async purge(options: GuardPurgeOptions): Promise<number> {
    const input = checkPurgeOptions(this.store, options);
    const since = this.tracer.now();
    try {
      return await this.store.purge({ now: this.clock(), ...input });
    } catch (error) {
      throw storeFailure('purge', error, this.tracer, since);
    }
  }

  /**
   * A completed receipt's result, decoded once by the codec, as the caller's `T`: the codec
   * cannot check what it decodes (see {@link Codec}), so it is taken to be what the handler
   * returned. Reports `replayed` once decoded.
   */
  private replayOf<T extends R>(receipt: ObservedReceipt, trace: Trace, since: number): Replay<T> {
    let response: T;
    try {
      response = this.codec.decode(receipt.response ?? 'null') as T;
    } catch (error) {
      throw new StoreError('replay (the stored response could not be decoded)', error);
    }
    trace.replayed(receipt.attempts, since);
    return { response, isReplay: true, attempts: receipt.attempts };
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
    const { store, clock, effectKeys } = this.env;
    const env = { store, clock, codec: this.codec, tracer: this.tracer, effectKeys };
    return runReceiptGroup(env, keys, work, options);
  }

  /** @internal A result as this guard's codec stores it: for HTTP answers under a codec of one's own. */
  encode(value: R): string {
    return this.codec.encode(value);
  }

  /** @internal A stored result as this guard's codec reads it (unchecked): for HTTP answers under a codec of one's own. */
  decode(text: string): R {
    return this.codec.decode(text);
  }
}
