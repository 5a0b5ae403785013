/**
 * @module Batched deliveries over HTTP (docs/providers.md#batched-deliveries): the request's own
 * receipt keyed by a digest of its item ids, and each item run under a receipt of its own through
 * the guard, so a retried, re-batched or concurrently duplicated batch books every item once.
 */
import { ErrorCode, IdempotencyError } from '../errors';
import type { IdempotencyGuard } from '../guard';
import { RequestKey } from '../request-key';
import type { Outcome } from '../types';
import { answerFor } from './answers';
import type {
  BatchItem,
  BatchItemHandler,
  DeliveryBatch,
  PresetItem,
  RequestIdempotency,
} from './batch-types';
import { canonicalJson, sha256Hex } from './fingerprint';
import type { EngineConfig } from './options';
import type { CapturedResponse } from './response-codec';
import { isRecordedStatus } from './response-codec';
import type { Run } from './runs';
import type { HttpRequest, HttpResponseRecord } from './types';

/** An item as the batch runs it: its key and its fingerprint (`null` when fingerprinting is off). */
interface BatchEntry extends BatchItem {
  readonly fingerprint: string | null;
}

/** A batched request read: the request's own key and fingerprint, and its items. */
export interface ReadBatch {
  readonly key: RequestKey;
  readonly fingerprint: string | null;
  readonly entries: readonly BatchEntry[];
}

/** Prefix of the external id of a batch's own receipt: no provider id we key on starts with it. */
const BATCH_PREFIX = 'batch:';

/**
 * Reads what a preset's `items` returned: every item must carry a valid id (else the whole request
 * is refused: no receipt at all). The request's own key is a digest of its distinct item ids, in
 * sorted order, so the same set of events re-sent in another order or another request is the same
 * batch; its fingerprint, a digest of each item's id and fingerprint.
 * @throws {IdempotencyError} `ERR_IDEMPOTENCY_KEY_MISSING` for a batch with no items or an item without an id.
 * @throws {InvalidRequestKey} for an id the receipts cannot hold.
 */
export function readBatch(
  provider: string,
  items: readonly PresetItem[],
  keyDescription: string,
  fingerprinting: boolean,
): ReadBatch {
  if (!Array.isArray(items) || items.length === 0)
    throw new IdempotencyError(
      ErrorCode.KEY_MISSING,
      `The request carries no items (provider "${provider}"), so it cannot be deduplicated`,
    );
  const entries = items.map((item, index): BatchEntry => {
    const id = item?.key;
    if (id === undefined || id === null || id === '')
      throw new IdempotencyError(
        ErrorCode.KEY_MISSING,
        `Item ${index} of the request carries no ${keyDescription} (provider "${provider}"), so the batch cannot be deduplicated`,
      );
    const fingerprint = fingerprinting
      ? (item.fingerprint ?? sha256Hex(canonicalJson(item.value)))
      : null;
    return { key: new RequestKey(provider, id), value: item.value, fingerprint };
  });
  // JSON-encoded lists: no id (a custom preset's may hold any character) can pass for two.
  const ids = [...new Set(entries.map((entry) => entry.key.externalId))].sort();
  const key = new RequestKey(provider, `${BATCH_PREFIX}${sha256Hex(JSON.stringify(ids))}`);
  if (!fingerprinting) return { key, fingerprint: null, entries };
  const lines = entries.map((entry) => JSON.stringify([entry.key.externalId, entry.fingerprint]));
  return { key, fingerprint: sha256Hex(JSON.stringify([...new Set(lines)].sort())), entries };
}

/** Recorded on the batch's receipt when the handler acknowledged a batch one of whose items failed. */
class ItemFailed extends Error {
  constructor() {
    super('an item of the batch failed; the batch is not complete');
    this.name = 'ItemFailed';
  }
}

/** The answers a batch run gives: the engine's own, for a reason of the guard's met by an item. */
type BatchConfig = Pick<EngineConfig, 'preset' | 'inProgressStatus'>;

/**
 * The engine's `PendingRun` for a batched request: the request's own run (on its ticket, never in
 * a transaction) plus the items, each run by `batch.each` through the guard. The request's receipt
 * is completed only when the handler answered 2xx after every item it ran was done; when an item
 * was refused for a reason of the guard's (held by another worker, another body, the store), the
 * batch is answered with that reason instead of whatever the handler or the framework answered.
 */
export class BatchRun<Tx> {
  /** The request's run never expires: it holds no transaction. */
  readonly expires = false;
  readonly idempotency: RequestIdempotency<Tx>;
  /** The first item error the engine answers for (409, 422, 503), if any. */
  private refusal: unknown;
  private refused = false;
  /** An item's handler failed (its own error). */
  private failed = false;

  constructor(
    private readonly run: Run<unknown>,
    private readonly guard: IdempotencyGuard<Tx>,
    private readonly entries: readonly BatchEntry[],
    private readonly verified: boolean,
    private readonly config: BatchConfig,
    private readonly request: HttpRequest,
    context: RequestIdempotency<Tx>,
  ) {
    const batch: DeliveryBatch<Tx> = {
      items: entries.map(({ key, value }) => ({ key, value })),
      each: (handler) => this.each(handler),
    };
    this.idempotency = { ...context, batch };
  }

  finish(response: CapturedResponse): Promise<HttpResponseRecord | null> {
    if (this.refused) return this.run.refuse(this.refusal);
    // The handler acknowledged a batch with a failed item: its answer goes out as it is, and the
    // batch stays retryable (a redelivery of it runs the failed item again instead of replaying).
    if (this.failed && isRecordedStatus(response.status))
      return this.run.abort(new ItemFailed()).then(() => null);
    return this.run.finish(response);
  }

  abort(error: unknown): Promise<HttpResponseRecord | null> {
    return this.refused ? this.run.refuse(this.refusal) : this.run.abort(error);
  }

  async answeredAround(status: number | undefined, how: string): Promise<void> {
    if (this.refused) await this.run.refuse(this.refusal);
    // As in finish: a 2xx sent around the adapter after an item failed leaves the batch retryable.
    else if (this.failed && status !== undefined && isRecordedStatus(status))
      await this.run.abort(new ItemFailed());
    else await this.run.answeredAround(status, how);
  }

  onExpire(send: (answer: HttpResponseRecord) => void): void {
    this.run.onExpire(send);
  }

  enter<T>(fn: () => T): T {
    return this.run.enter(fn);
  }

  private async each<T>(handler: BatchItemHandler<T, Tx>): Promise<readonly Outcome<unknown>[]> {
    if (typeof handler !== 'function')
      throw new TypeError('batch.each(handler) needs a function of (item, context)');
    const outcomes: Outcome<unknown>[] = [];
    for (const entry of this.entries) {
      let own: { error: unknown } | undefined;
      try {
        const outcome = await this.guard.run(
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
        outcomes.push(outcome);
      } catch (error) {
        this.settleItem(error, own);
        throw error;
      }
    }
    return outcomes;
  }

  /** Records why an item was not done: the guard's reason (the batch's answer), or the handler's failure. */
  private settleItem(error: unknown, own: { error: unknown } | undefined): void {
    const theHandlers = own !== undefined && own.error === error;
    if (!theHandlers && !this.refused && answerFor(error, this.config, this.request)) {
      this.refused = true;
      this.refusal = error;
    } else {
      this.failed = true;
    }
  }
}
