/**
 * @module Batched deliveries over HTTP (docs/providers.md#batched-deliveries): the request's own
 * receipt keyed by a digest of its item ids, and each item run under a receipt of its own through
 * the guard, so a retried, re-batched or concurrently duplicated batch books every item once. An
 * item refused for a reason no redelivery changes does not stop the others; one a redelivery may
 * still get done does.
 */
import { ErrorCode, IdempotencyError, isIdempotencyError } from '../errors';
import type { IdempotencyGuard } from '../guard';
import type { RequestKey } from '../request-key';
import { answerFor } from './answers';
import type { BatchEntry } from './batch-read';
import type {
  BatchItemHandler,
  DeliveryBatch,
  ItemOutcome,
  RefusedItem,
  RequestIdempotency,
} from './batch-types';
import type { EngineConfig } from './options';
import { isRecordedStatus } from './response-codec';
import type { HttpRequest } from './types';

/**
 * The guard's refusals a redelivery may cure, all answered with `Retry-After`: another worker
 * holds the item, the item's run lost its claim or outlived its deadline, the store failed. An
 * item refused for one of these stops the batch at once; for any other reason (its id first
 * received with another payload, no valid id), the batch goes on and is answered with the refusal at the end.
 */
const RETRY_CURES: ReadonlySet<string> = new Set([
  ErrorCode.IN_PROGRESS,
  ErrorCode.CLAIM_LOST,
  ErrorCode.STORE,
  ErrorCode.HANDLER_TIMEOUT,
]);

/** How many refused items the batch's answer and its receipt name; the rest are counted. */
const NAMED_ITEMS = 5;

/** How the batch's answer says why its first refused item was refused, by the refusal's code. */
const WHY: Readonly<Record<string, string>> = {
  [ErrorCode.FINGERPRINT_MISMATCH]: 'first received with another payload',
  [ErrorCode.KEY_MISSING]: 'sent without an id',
  [ErrorCode.KEY_INVALID]: 'sent with an id the receipts cannot hold',
};

/** An item refused for good, as the batch's answer names it. */
export interface Refusal {
  readonly key: RequestKey;
  readonly error: IdempotencyError;
}

/**
 * The batch's answer when items were refused for good: the first refusal's code (its status:
 * 422 for another payload under an id, 400 for an item without a valid id), naming every refused item, so the batch's `failed`
 * receipt shows the operator which items a redelivery will never book.
 */
export function refusedItems(refusals: readonly Refusal[]): IdempotencyError {
  const [first] = refusals;
  if (!first) throw new TypeError('no refused item');
  const keys = [...new Set(refusals.map(({ key }) => `${key.provider}/${key.externalId}`))];
  const more = keys.length > NAMED_ITEMS ? ` and ${keys.length - NAMED_ITEMS} more` : '';
  const named = `${keys.slice(0, NAMED_ITEMS).join(', ')}${more}`;
  const one = keys.length === 1;
  const codes = [...new Set(refusals.map(({ error }) => error.code))];
  const why = (codes.length === 1 && WHY[first.error.code]) || `refused (${codes.join(', ')})`;
  return new IdempotencyError(
    first.error.code,
    `The batch's ${one ? 'item' : 'items'} ${named} ${one ? 'was' : 'were'} ${why}: not run, and a redelivery is refused the same way`,
  );
}

/** Recorded on the batch's receipt when the handler acknowledged a batch one of whose items failed. */
class ItemFailed extends Error {
  constructor() {
    super('an item of the batch failed; the batch is not complete');
    this.name = 'ItemFailed';
  }
}

/** The answers a batch gives: the engine's own, for a reason of the guard's met by an item. */
type BatchConfig = Pick<EngineConfig, 'preset' | 'inProgressStatus'>;

/**
 * What the batch's items say about how the request's own run ends, for an answer with `status`:
 * answered with the guard's refusal of an item instead (`refused`); the handler's 2xx passed on
 * but the batch left retryable because an item failed (`failed`); completed even when its own
 * receipt cannot keep the answer, every item being recorded under a receipt of its own
 * (`recorded`); or as any other run (`undefined`).
 */
export type BatchVerdict =
  | { readonly refused: unknown }
  | { readonly failed: Error }
  | 'recorded'
  | undefined;

/**
 * The items of a batched request, run by the handler's `batch.each` through the guard, each under
 * a receipt of its own. The request's own run (on its ticket, never in a transaction) asks
 * {@link BatchItems.verdict} how to end: its receipt is completed only when the handler answered
 * 2xx after every item was done; when an item was refused for a reason of the guard's (held by
 * another worker, another payload, the store), the batch is answered with that reason instead of
 * whatever the handler or the framework answered, and its receipt is marked `failed`.
 */
export class BatchItems<Tx> {
  /** The guard's refusal of an item that stopped the batch, a redelivery may cure it (409, 503). */
  private stopped: { readonly error: unknown } | undefined;
  /** The items refused for a reason no redelivery changes (422), in the request's order. */
  private readonly refusals: Refusal[] = [];
  /** An item's handler failed (its own error). */
  private failed = false;
  /** `each` went through every item: each is recorded on a receipt of its own. */
  private done = false;

  constructor(
    private readonly guard: IdempotencyGuard<Tx>,
    private readonly entries: readonly BatchEntry[],
    private readonly verified: boolean,
    private readonly config: BatchConfig,
    private readonly request: HttpRequest,
  ) {}

  /** What the handler sees: the request's own run context, with the batch's items. */
  idempotency(context: RequestIdempotency<Tx>): RequestIdempotency<Tx> {
    const batch: DeliveryBatch<Tx> = {
      items: this.entries.map(({ key, value, refusal }) =>
        refusal ? { key, value, refused: refusal } : { key, value },
      ),
      each: (handler) => this.each(handler),
    };
    return { ...context, batch };
  }

  /** How the request's run ends for an answer with `status` (`undefined`: none went out, or an error). */
  verdict(status: number | undefined): BatchVerdict {
    const refusal = this.refusal();
    if (refusal) return { refused: refusal.error };
    // The handler acknowledged a batch with a failed item: its answer goes out as it is, and the
    // batch stays retryable (a redelivery of it runs the failed item again instead of replaying).
    if (this.failed && status !== undefined && isRecordedStatus(status))
      return { failed: new ItemFailed() };
    // Every item is recorded on its own receipt, the batch's only spares a redelivery the item
    // look-ups: an answer it cannot keep (taken over once stale, the store failing) still goes out.
    return this.done ? 'recorded' : undefined;
  }

  /** What the batch is answered with instead of the handler: what stopped it, else its refused items. */
  private refusal(): { readonly error: unknown } | undefined {
    if (this.stopped) return this.stopped;
    return this.refusals.length > 0 ? { error: refusedItems(this.refusals) } : undefined;
  }

  private async each<T>(handler: BatchItemHandler<T, Tx>): Promise<readonly ItemOutcome[]> {
    if (typeof handler !== 'function')
      throw new TypeError('batch.each(handler) needs a function of (item, context)');
    const outcomes: ItemOutcome[] = [];
    for (const entry of this.entries) {
      // A repeat of an id with the same payload: its first item ran (or was refused) already.
      const shared = entry.sameAs === undefined ? undefined : outcomes[entry.sameAs];
      if (shared) outcomes.push(shared);
      else if (entry.refusal) outcomes.push(this.refuse(entry.key, entry.refusal));
      else outcomes.push(await this.item(entry, handler));
    }
    this.done = true;
    return outcomes;
  }

  /**
   * Runs one item through the guard. Resolves with its outcome, or with a {@link RefusedItem}
   * when the guard refused it for good; rejects (stopping the batch) with the handler's own error
   * or a refusal a redelivery may cure.
   */
  private async item<T>(entry: BatchEntry, handler: BatchItemHandler<T, Tx>): Promise<ItemOutcome> {
    let own: { error: unknown } | undefined;
    try {
      return await this.guard.run(
        entry.key,
        async (context) => {
          try {
            return await handler(entry.value as T, context);
          } catch (error) {
            own = { error };
            throw error;
          }
        },
        { fingerprint: entry.fingerprint, verified: this.verified },
      );
    } catch (error) {
      const theHandlers = own !== undefined && own.error === error;
      const answered = !theHandlers && answerFor(error, this.config, this.request) !== undefined;
      if (answered && isIdempotencyError(error) && !RETRY_CURES.has(error.code))
        return this.refuse(entry.key, error);
      if (answered) this.stopped ??= { error };
      else this.failed = true;
      throw error;
    }
  }

  /** Notes an item refused for good (the batch's answer at the end) and gives its outcome. */
  private refuse(key: RequestKey, error: IdempotencyError): RefusedItem {
    this.refusals.push({ key, error });
    return { refused: error };
  }
}
