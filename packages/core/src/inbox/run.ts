/**
 * @module Running one stored delivery through the guard's receipts: what the inbox worker and the
 * queue consumer share (DESIGN.md §13). The handler runs once per provider and external id; a
 * delivery claimed again is replayed from its receipt.
 */
import { MAX_ERROR_LENGTH, SECOND } from '../constants';
import { ClaimLost, ConfigError, RequestInProgress } from '../errors';
import { IdempotencyGuard } from '../guard';
import { RequestKey } from '../request-key';
import type { RunContext, Store } from '../types';
import type { Delivery, DeliveryRef, InboxEvent } from './types';

/** Runs one stored delivery; with a transactional receipts store, write through `context.transaction`. */
export type InboxHandler<Tx = never> = (
  delivery: Delivery,
  context: RunContext<Tx>,
) => unknown | Promise<unknown>;

/** What running a delivery came to. */
export type DeliveryResult =
  /** The handler committed, or its receipt showed it already had (`replayed`). */
  | { readonly kind: 'processed'; readonly replayed: boolean }
  /** Another run holds (or took over) the receipt: not a failure; look again after `delayMs`. */
  | {
      readonly kind: 'busy';
      readonly delayMs: number;
      readonly error: RequestInProgress | ClaimLost;
    }
  /** The handler (or its commit) failed; `text` is the error for the store, truncated. */
  | { readonly kind: 'failed'; readonly error: unknown; readonly text: string };

/** The options both the worker and the consumer take for their receipts. */
export interface ReceiptsOptions<Tx> {
  /**
   * The receipts store the handlers run through (`new SqlStore(db)`), transactional when it can
   * be: the business writes and the receipt commit together. Exactly one of `store` and `guard`.
   */
  store?: Store<Tx>;
  /** A ready guard instead of `store`; its `staleAfterSeconds` must not exceed `visibilityTimeoutSeconds`. */
  guard?: IdempotencyGuard<Tx>;
}

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
  attempts: d.attempts,
});

/** `onEvent` made safe: an observer never changes what happens to a delivery. */
export function emitter(
  onEvent: ((event: InboxEvent) => void) | undefined,
): (event: InboxEvent) => void {
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

/** Validates a number option, naming it. */
export function numberOption(option: string, value: unknown, min: number, integer = false): number {
  if (
    typeof value !== 'number' ||
    !Number.isFinite(value) ||
    value < min ||
    (integer && !Number.isSafeInteger(value))
  )
    throw new ConfigError(
      option,
      `must be a ${integer ? 'whole ' : ''}number >= ${min}, got ${String(value)}`,
    );
  return value;
}

/** Validates `handlers` (one function per provider) and returns the providers. */
export function providersOf(handlers: unknown): string[] {
  if (typeof handlers !== 'object' || handlers === null)
    throw new ConfigError('handlers', 'must be an object of one handler per provider');
  const providers = Object.keys(handlers);
  if (providers.length === 0) throw new ConfigError('handlers', 'must name at least one provider');
  for (const provider of providers)
    if (typeof (handlers as Record<string, unknown>)[provider] !== 'function')
      throw new ConfigError('handlers', `the handler for "${provider}" must be a function`);
  return providers;
}

/**
 * The guard handlers run through: the user's, or one over `store` timed by `visibility` (seconds):
 * the receipts go stale at 90 % of it and a transactional handler's deadline is 80 %, so a
 * handler never outlives the lease (or the queue's visibility) it runs under.
 */
export function guardFor<Tx>(
  options: ReceiptsOptions<Tx>,
  visibility: number,
): IdempotencyGuard<Tx> {
  const { store, guard } = options;
  if ((store === undefined) === (guard === undefined))
    throw new ConfigError('store', 'exactly one of `store` and `guard` is required');
  if (guard !== undefined) {
    if (!(guard instanceof IdempotencyGuard))
      throw new ConfigError('guard', 'must be an IdempotencyGuard');
    if (guard.staleAfterMs > visibility * SECOND)
      throw new ConfigError(
        'visibilityTimeoutSeconds',
        `must be at least the guard's staleAfterSeconds (${guard.staleAfterMs / SECOND}), so a taken-over delivery finds its receipt stale`,
      );
    return guard;
  }
  return new IdempotencyGuard(store as Store<Tx>, {
    staleAfterSeconds: visibility * 0.9,
    transactional: store!.capabilities?.transactional === true,
    handlerTimeoutSeconds: visibility * 0.8,
  });
}

/** Runs `delivery`'s handler through `guard`, keyed by its provider and external id; never rejects. */
export async function runDelivery<Tx>(
  guard: IdempotencyGuard<Tx>,
  handler: InboxHandler<Tx>,
  delivery: Delivery,
): Promise<DeliveryResult> {
  try {
    const key = new RequestKey(delivery.provider, delivery.externalId);
    const outcome = await guard.run(key, (context) => handler(delivery, context));
    return { kind: 'processed', replayed: outcome.isReplay };
  } catch (error) {
    if (error instanceof RequestInProgress)
      return { kind: 'busy', delayMs: error.retryAfterSeconds * SECOND, error };
    if (error instanceof ClaimLost) return { kind: 'busy', delayMs: SECOND, error };
    return { kind: 'failed', error, text: errorText(error) };
  }
}
