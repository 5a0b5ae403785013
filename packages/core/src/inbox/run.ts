/**
 * @module Running one stored delivery through the guard's receipts: what the inbox worker and the
 * queue consumer share. The handler runs once per provider and external id; a delivery leased
 * again is replayed from its receipt. A run is bounded ({@link boundedRun}): it ends at its
 * deadline, under the lease, and when its worker stops.
 */
import { MAX_ERROR_LENGTH, SECOND } from '../constants';
import { ClaimLost, ConfigError, HandlerTimeout, RequestInProgress, StoreError } from '../errors';
import type { IdempotencyGuard } from '../guard';
import { RequestKey } from '../request-key';
import { abortReason } from '../abort';
import type { RunContext } from '../types';
import type { Delivery, DeliveryLease, DeliveryRef, GiveBackEventName, InboxEvent } from './types';
import { leaseCount, leasesOf } from './lease-count';

/** What an inbox handler gets besides the delivery: the guard's context and the run's signal. */
export interface InboxContext<Tx = never> extends RunContext<Tx> {
  /**
   * Aborted when the run is over before the handler is: at its deadline (80 % of the lease, the
   * reason a {@link HandlerTimeout}) or when the worker stops (an `AbortError`). Pass it on to what
   * the handler awaits (`fetch(url, { signal })`): the worker has stopped waiting, and without a
   * transaction nothing else can stop the handler's own work.
   */
  readonly signal: AbortSignal;
}

/** Runs one stored delivery; with a transactional receipts store, write through `context.transaction`. */
export type InboxHandler<Tx = never> = (
  delivery: Delivery,
  context: InboxContext<Tx>,
) => unknown | Promise<unknown>;

/** How long a delivery waits after a receipts-store failure when the caller sets no delay of its own. */
export const STORE_ERROR_DELAY_MS = 5 * SECOND;

/** What running a delivery came to. */
export type DeliveryResult =
  /**
   * The handler committed, or its receipt showed it already had (`replayed`). `completed`: the
   * delivery was marked done in the handler's transaction (`true`), or its lease was found lost
   * there (`false`); absent when it was not tried (a replay, no shared transaction).
   */
  | { readonly kind: 'processed'; readonly replayed: boolean; readonly completed?: boolean }
  /**
   * Not this delivery's failure; look again after `delayMs`: another run holds (or took over) the
   * receipt (`in-progress`), or the receipts store failed to claim or record it (`store-error`,
   * a {@link StoreError} the handler did not throw itself).
   */
  | {
      readonly kind: 'busy';
      readonly reason: 'in-progress' | 'store-error';
      readonly delayMs: number;
      readonly error: RequestInProgress | ClaimLost | StoreError;
    }
  /** The handler (or its commit) failed; `text` is the error for the store, truncated. */
  | { readonly kind: 'failed'; readonly error: unknown; readonly text: string };

/** An error's text as the inbox stores it: `Name: message`, at most {@link MAX_ERROR_LENGTH} characters. */
export function errorText(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.length > MAX_ERROR_LENGTH ? `${text.slice(0, MAX_ERROR_LENGTH - 1)}…` : text;
}

/** A delivery (or a queue job's reference to one) as events name it. */
export const refOf = (d: DeliveryRef): DeliveryRef => ({
  id: d.id,
  provider: d.provider,
  externalId: d.externalId,
  ...leaseCount(leasesOf(d)),
});

/**
 * `onEvent` made safe: an observer never changes what happens to a delivery. `giveBackEvent`:
 * the deprecated `'released'` renames each give-back for the one minor version it is kept.
 */
export function emitter(
  onEvent: ((event: InboxEvent) => void) | undefined,
  giveBackEvent: GiveBackEventName = 'given-back',
): (event: InboxEvent) => void {
  const observe = observer(onEvent);
  if (giveBackEvent !== 'given-back' && giveBackEvent !== 'released')
    throw new ConfigError('giveBackEvent', "must be 'given-back' or 'released' (deprecated)");
  if (giveBackEvent === 'given-back') return observe;
  return (event) => observe(event.type === 'given-back' ? { ...event, type: 'released' } : event);
}

/**
 * An `onEvent` option made safe, for any part's events (the inbox's, the outbox dispatcher's):
 * checked to be a function when given, and what it throws ignored, so an observer never changes
 * what happens to a delivery or a message.
 * @throws {ConfigError} naming `onEvent` when it is given and not a function.
 */
export function observer<E>(onEvent: ((event: E) => void) | undefined): (event: E) => void {
  if (onEvent !== undefined && typeof onEvent !== 'function')
    throw new ConfigError('onEvent', 'must be a function');
  return (event) => {
    try {
      onEvent?.(event);
    } catch {
      // Ignored on purpose.
    }
  };
}

/**
 * The most deliveries one lease call may lease (a worker's `concurrency`, a relay's `sendSize`): a
 * lease call and a lease renewal bind one or two values per delivery, and past a few thousand they
 * would meet the databases' placeholder limits (SQLite 32,766, PostgreSQL and MariaDB 65,535).
 */
export const MAX_LEASE_LIMIT = 1000;

/**
 * Validates a number option, naming it: a finite number of at least `min`, at most `max` when
 * given, whole when `integer`. Returns it. For store and bridge authors' options.
 * @throws {ConfigError} naming `option` and what it must be.
 */
export function numberOption(
  option: string,
  value: unknown,
  min: number,
  integer = false,
  max = Number.POSITIVE_INFINITY,
): number {
  if (
    typeof value !== 'number' ||
    !Number.isFinite(value) ||
    value < min ||
    value > max ||
    (integer && !Number.isSafeInteger(value))
  )
    throw new ConfigError(
      option,
      `must be a ${integer ? 'whole ' : ''}number >= ${min}${max < Number.POSITIVE_INFINITY ? ` and <= ${max}` : ''}, got ${String(value)}`,
    );
  return value;
}

/**
 * Runs `delivery`'s handler through `guard`, keyed by its provider and external id; never rejects.
 * The run is cut off at the guard's handler deadline (`handlerTimeoutMs`, under the lease) with or
 * without a transaction, and when `options.signal` aborts (a stopping worker): a transactional run
 * is rolled back; without one, the handler is told through `context.signal` and no longer waited
 * for. Either way the result is `failed` at once, even if the handler never settles.
 *
 * With `options.complete` (`completerOf`) and a transaction, the delivery is marked done
 * under `options.lease` in that transaction once the handler has returned, before the receipt is:
 * a failure of that write rolls everything back and is a store failure (`busy`, `store-error`).
 */
export async function runDelivery<Tx>(
  guard: IdempotencyGuard<Tx>,
  handler: InboxHandler<Tx>,
  delivery: Delivery,
  options: {
    readonly signal?: AbortSignal;
    readonly complete?:
      | ((lease: DeliveryLease, transaction: unknown) => Promise<boolean>)
      | undefined;
    readonly lease?: DeliveryLease;
  } = {},
): Promise<DeliveryResult> {
  const { signal, complete } = options;
  const lease = options.lease ?? delivery;
  /** Whether the delivery was marked done in the handler's transaction; unset when not tried. */
  let completed: boolean | undefined;
  const timeoutMs = guard.handlerTimeoutMs;
  const run = boundedRun(timeoutMs, signal, () => {
    const outcome = guard.transactional
      ? undefined
      : 'it was cut off (context.signal aborted) and its receipt left to go stale';
    return new HandlerTimeout(delivery.provider, delivery.externalId, timeoutMs, outcome);
  });
  /** What the handler itself threw: its failure, even when it is a StoreError of its own. */
  let thrown: { error: unknown } | undefined;
  try {
    const key = new RequestKey(delivery.provider, delivery.externalId);
    const outcome = await guard.run(
      key,
      async (context) => {
        let value: unknown;
        try {
          value = await handler(delivery, { ...context, signal: run.signal });
        } catch (error) {
          thrown = { error };
          throw error;
        }
        if (complete !== undefined && context.transaction !== undefined) {
          try {
            completed = await complete(lease, context.transaction);
          } catch (error) {
            throw new StoreError("complete (in the receipt's transaction)", error, 'inbox');
          }
        }
        return value;
      },
      { signal: run.signal },
    );
    return outcome.isReplay || completed === undefined
      ? { kind: 'processed', replayed: outcome.isReplay }
      : { kind: 'processed', replayed: false, completed };
  } catch (error) {
    return endedWith(error, thrown);
  } finally {
    run.end();
  }
}

/**
 * What a run that threw `error` came to: not the delivery's failure (`busy`) when another run holds
 * its receipt or the receipts store failed (a StoreError the handler did not throw itself,
 * `thrown`), else the handler's failure.
 */
function endedWith(error: unknown, thrown: { error: unknown } | undefined): DeliveryResult {
  if (error instanceof RequestInProgress)
    return {
      kind: 'busy',
      reason: 'in-progress',
      delayMs: error.retryAfterSeconds * SECOND,
      error,
    };
  if (error instanceof ClaimLost)
    return { kind: 'busy', reason: 'in-progress', delayMs: SECOND, error };
  if (error instanceof StoreError && thrown?.error !== error)
    return { kind: 'busy', reason: 'store-error', delayMs: STORE_ERROR_DELAY_MS, error };
  return { kind: 'failed', error, text: errorText(error) };
}

/**
 * A run's own signal, aborted at `timeoutMs` with `timedOut()`'s error, or when `stop` aborts (a
 * stopping worker) with its reason, whichever comes first; `end()` drops the timer and the listener
 * once the run is over.
 */
export function boundedRun(
  timeoutMs: number,
  stop: AbortSignal | undefined,
  timedOut: () => Error,
): { readonly signal: AbortSignal; end(): void } {
  const run = new AbortController();
  const timer = setTimeout(() => run.abort(timedOut()), timeoutMs);
  timer.unref?.();
  const onStop = () => run.abort(abortReason(stop!));
  if (stop?.aborted) onStop();
  else stop?.addEventListener('abort', onStop, { once: true });
  return {
    signal: run.signal,
    end: () => {
      clearTimeout(timer);
      stop?.removeEventListener('abort', onStop);
    },
  };
}
