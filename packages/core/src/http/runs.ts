/**
 * @module The run of one claimed delivery over HTTP: the handler's answer, handed in by the
 * adapter, settled on the claim's ticket or inside its open transaction.
 */
import { DeliveryOutcome } from '../constants';
import { ErrorCode, IdempotencyError, type StoreError } from '../errors';
import type { ClaimTicket } from '../ticket';
import type { OpenTransaction } from '../ticket-transaction';
import { outcomeOf, type Trace } from '../trace';
import { answerFor } from './answers';
import type { EngineConfig } from './options';
import {
  type CapturedResponse,
  encodeResponse,
  isRecordedStatus,
  type StoredResponse,
} from './response-codec';
import type { HttpRequest, HttpResponseRecord } from './types';

/**
 * The error an adapter hands {@link PendingRun.abort} when the handler answered around it
 * (Fastify `reply.hijack()`, Koa `ctx.respond = false`): the answer was never captured, so it
 * cannot be recorded or replayed, and the receipt becomes `failed` instead of staying
 * `processing` (or being completed with a body that was not sent). `how` names the bypass.
 */
export function responseNotCaptured(how: string): IdempotencyError {
  return new IdempotencyError(
    ErrorCode.RESPONSE_NOT_CAPTURED,
    `The handler answered around the adapter (${how}) and no 2xx answer is known to have reached the caller; the receipt is marked failed`,
  );
}

/** A non-2xx answer, as the guard records it on the failed receipt. */
class UnsuccessfulAnswer extends Error {
  constructor(status: number) {
    super(`the handler answered HTTP ${status}`);
    this.name = 'UnsuccessfulAnswer';
  }
}

const ignore = (): undefined => undefined;
const same = <T>(value: T): T => value;
/** What `abort` resolves with when the failure stays the handler's: no answer of the guard's. */
const nothing = (): null => null;

/**
 * How a run's answer is settled, on `S`: one shared object per way, so a run costs no more than
 * itself. On the ticket, `complete`/`fail`; in the ticket's open transaction, `commit`/`rollback`.
 */
export interface Settlement<S> {
  /** Whether a deadline may end the run before the handler answers (only a transaction has one). */
  readonly expires: boolean;
  /** Records the answer as the key's result. */
  complete(on: S, response: StoredResponse): Promise<void>;
  /**
   * Marks the receipt `failed`. Resolves with the {@link StoreError} that caused the failure when
   * the store lost the transaction's connection under the handler, else `undefined`.
   */
  fail(on: S, error: unknown): Promise<StoreError | undefined>;
  /** Calls `fn` in the async context the handler runs in. */
  enter<T>(on: S, fn: () => T): T;
  /** Tells `run` if `S` ends before the run settled it (the transaction's deadline). */
  watch(on: S, run: Run<S>): void;
}

/** Settles on the ticket: nothing expires, and the handler runs in the caller's context. */
export const ON_TICKET: Settlement<ClaimTicket<StoredResponse, unknown>> = {
  expires: false,
  complete: (ticket, response) => ticket.complete(response),
  fail: async (ticket, error) => {
    await ticket.fail(error);
    return undefined;
  },
  enter: (_ticket, fn) => fn(),
  watch: ignore,
};

/**
 * Settles in the open transaction (DESIGN.md §7): the answer commits with the receipt, anything
 * else rolls back; the deadline may end it first.
 */
export const IN_TRANSACTION: Settlement<OpenTransaction<StoredResponse, unknown>> = {
  expires: true,
  complete: (open, response) => open.commit(response),
  fail: (open, error) => open.rollback(error),
  enter: (open, fn) => open.enter(fn),
  watch: (open, run) => open.onEnded((error) => run.expired(error)),
};

/** What a run reads of the engine's options: how answers are stored, and the guard's own answers. */
type RunConfig = Pick<
  EngineConfig,
  'maxResponseBytes' | 'replayedHeader' | 'preset' | 'inProgressStatus'
>;

/**
 * A claimed delivery whose handler is running: the engine's `PendingRun`. The handler has already
 * started when the adapter gets this, so every method only records: `finish` completes (2xx) or
 * fails the run, `abort` fails it. When the transaction ends first (the handler deadline), the
 * adapter's `onExpire` sends the guard's answer instead (503 with `Retry-After`). The run reports
 * the request's `delivered` event on its trace.
 */
export class Run<S> {
  /** Set by the first of finish/abort/answeredAround/expiry; later calls get the same answer. */
  private ended: Promise<HttpResponseRecord | null> | undefined;
  private expire: ((answer: HttpResponseRecord) => void) | undefined;
  /** Whether `onExpire` may call back at all. */
  readonly expires: boolean;

  constructor(
    private readonly settlement: Settlement<S>,
    private readonly on: S,
    private readonly config: RunConfig,
    private readonly request: HttpRequest,
    private readonly trace: Trace,
  ) {
    this.expires = settlement.expires;
    settlement.watch(on, this);
  }

  finish(response: CapturedResponse): Promise<HttpResponseRecord | null> {
    this.ended ??= this.record(response);
    return this.ended;
  }

  /**
   * Like {@link Run.finish}, for a run whose work is recorded elsewhere (a batch whose every item
   * is done under a receipt of its own): when a 2xx cannot be kept on this run's receipt (taken
   * over once stale, the store failing), the handler's answer still goes out instead of the
   * guard's 409 or 503, which would only make the provider redeliver what is done.
   */
  finishRecorded(response: CapturedResponse): Promise<HttpResponseRecord | null> {
    this.ended ??= this.record(response, true);
    return this.ended;
  }

  abort(error: unknown): Promise<HttpResponseRecord | null> {
    this.ended ??= this.settlement
      .fail(this.on, error)
      .then((lost) => this.failed(lost, undefined));
    return this.ended.then(same, nothing);
  }

  /**
   * Ends the run for a reason of the guard's that the handler's answer does not show (an item of a
   * batch held by another worker, refused, or its store failing): the receipt is marked `failed`
   * and the guard's answer for `error` goes out instead of the handler's (or the framework's).
   */
  refuse(error: unknown): Promise<HttpResponseRecord | null> {
    this.ended ??= this.settlement
      .fail(this.on, error)
      .then((lost) => this.unrecorded(lost ?? error));
    return this.ended.then(same, nothing);
  }

  /**
   * A 2xx that went out around the adapter is completed with an empty body; anything else fails
   * the run as not captured.
   */
  answeredAround(status: number | undefined, how: string): Promise<void> {
    if (status === undefined || !isRecordedStatus(status))
      return this.abort(responseNotCaptured(how)).then(ignore);
    return this.finish({ status, headers: {}, body: Buffer.alloc(0) }).then(ignore, ignore);
  }

  onExpire(send: (answer: HttpResponseRecord) => void): void {
    this.expire = send;
  }

  enter<T>(fn: () => T): T {
    return this.settlement.enter(this.on, fn);
  }

  /** The transaction ended before the handler answered: the guard gave up on the run (its deadline). */
  expired(error: unknown): void {
    if (this.ended) return;
    this.ended = Promise.resolve(null);
    const answer = answerFor(error, this.config, this.request);
    if (answer && this.expire) this.expire(answer);
    this.trace.delivered(outcomeOf(error, true), answer?.status);
  }

  private async record(
    response: CapturedResponse,
    recordedElsewhere = false,
  ): Promise<HttpResponseRecord | null> {
    const { settlement, on, trace } = this;
    if (!isRecordedStatus(response.status)) {
      const lost = await settlement.fail(on, new UnsuccessfulAnswer(response.status));
      return this.failed(lost, response.status);
    }
    let stored: StoredResponse;
    try {
      const { maxResponseBytes: maxBytes, replayedHeader } = this.config;
      stored = encodeResponse(response, { maxBytes, replayedHeader: replayedHeader.toLowerCase() });
    } catch (error) {
      // ERR_IDEMPOTENCY_RESPONSE_TOO_LARGE: the receipt is failed, the error the framework's.
      await settlement.fail(on, error);
      trace.delivered(DeliveryOutcome.FAILED, undefined);
      throw error;
    }
    try {
      await settlement.complete(on, stored);
    } catch (error) {
      if (!recordedElsewhere || !answerFor(error, this.config, this.request))
        return this.unrecorded(error);
      trace.delivered(outcomeOf(error, true), response.status);
      return null;
    }
    trace.delivered(DeliveryOutcome.FIRST, response.status);
    return null;
  }

  /**
   * The run failed and its receipt was marked so. When the store lost the transaction's connection
   * under the handler (`lost`), the handler's failure was the store's: the guard's 503 replaces its
   * answer.
   */
  private failed(
    lost: StoreError | undefined,
    status: number | undefined,
  ): HttpResponseRecord | null {
    if (lost) return this.unrecorded(lost);
    this.trace.delivered(DeliveryOutcome.FAILED, status);
    return null;
  }

  /** What to send instead of the handler's answer when it could not be recorded (409, 503), else a rejection. */
  private unrecorded(error: unknown): HttpResponseRecord {
    const answer = answerFor(error, this.config, this.request);
    this.trace.delivered(outcomeOf(error, true), answer?.status);
    if (answer) return answer;
    throw error;
  }
}
