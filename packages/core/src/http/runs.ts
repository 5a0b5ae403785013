/** @module The two ways a claimed delivery is settled: on its ticket, or inside its transaction. */
import { DeliveryOutcome } from '../constants';
import { ErrorCode, IdempotencyError, type StoreError } from '../errors';
import { outcomeOf } from '../guard';
import type { ClaimTicket, OpenTransaction } from '../ticket';
import { answerFor } from './answers';
import { type DeliveryTrace, reportDelivery } from './delivery';
import type { PendingRun } from './engine';
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
/** What `abort` resolves with when the failure stays the handler's: no answer of the guard's. */
const nothing = (): null => null;

/**
 * A claimed delivery, settled on its ticket when the adapter hands in the handler's answer. The
 * handler has already started when the adapter gets this, so every method only records: `finish`
 * completes (2xx) or fails the ticket, `abort` fails it.
 */
export class TicketRun implements PendingRun {
  /** Set by the first of finish/abort/answeredAround; later calls get the same answer. */
  private ended: Promise<HttpResponseRecord | null> | undefined;

  constructor(
    private readonly config: EngineConfig<unknown, unknown>,
    private readonly request: HttpRequest<unknown>,
    private readonly ticket: ClaimTicket<StoredResponse, unknown>,
    /** Set when events are listened to: the run reports its `delivered` event. */
    private readonly trace: DeliveryTrace | undefined,
  ) {}

  finish(response: CapturedResponse): Promise<HttpResponseRecord | null> {
    this.ended ??= this.record(response);
    return this.ended;
  }

  abort(error: unknown): Promise<HttpResponseRecord | null> {
    this.ended ??= this.ticket.fail(error).then(() => {
      if (this.trace) reportDelivery(this.trace, DeliveryOutcome.FAILED, undefined);
      return null;
    });
    return this.ended.then(nothing, nothing);
  }

  answeredAround(status: number | undefined, how: string): Promise<void> {
    return answerAround(this, status, how);
  }

  /** Nothing expires: without a transaction there is no deadline to cut the handler off. */
  readonly expires = false;

  /** Never calls back (see {@link TicketRun.expires}). */
  onExpire(): void {}

  enter<T>(fn: () => T): T {
    return fn();
  }

  private async record(response: CapturedResponse): Promise<HttpResponseRecord | null> {
    const { trace } = this;
    if (!isRecordedStatus(response.status)) {
      await this.ticket.fail(new UnsuccessfulAnswer(response.status));
      if (trace) reportDelivery(trace, DeliveryOutcome.FAILED, response.status);
      return null;
    }
    let stored: StoredResponse;
    try {
      stored = encodeFor(response, this.config);
    } catch (error) {
      await this.ticket.fail(error);
      if (trace) reportDelivery(trace, DeliveryOutcome.FAILED, undefined);
      throw error;
    }
    try {
      await this.ticket.complete(stored);
      if (trace) reportDelivery(trace, DeliveryOutcome.FIRST, response.status);
      return null;
    } catch (error) {
      if (trace) reportSettled(trace, error, this.config, this.request);
      return settledAnswer(error, this.config, this.request);
    }
  }
}

/**
 * {@link PendingRun.answeredAround} for either run: a 2xx that went out around the adapter is
 * completed with an empty body, anything else fails the run as not captured.
 */
function answerAround(run: PendingRun, status: number | undefined, how: string): Promise<void> {
  if (status === undefined || !isRecordedStatus(status))
    return run.abort(responseNotCaptured(how)).then(ignore);
  return run.finish({ status, headers: {}, body: Buffer.alloc(0) }).then(ignore, ignore);
}

/** The handler's answer as the receipt stores it (throws `ERR_IDEMPOTENCY_RESPONSE_TOO_LARGE`). */
function encodeFor(
  response: CapturedResponse,
  config: EngineConfig<unknown, unknown>,
): StoredResponse {
  const { maxResponseBytes: maxBytes, replayedHeader } = config;
  return encodeResponse(response, { maxBytes, replayedHeader: replayedHeader.toLowerCase() });
}

/** What to send instead of the handler's answer when recording failed (409, 503), else a rejection. */
function settledAnswer(
  error: unknown,
  config: EngineConfig<unknown, unknown>,
  request: HttpRequest<unknown>,
): HttpResponseRecord {
  const answer = answerFor(error, config, request);
  if (answer) return answer;
  throw error;
}

/** Reports a run that could not be recorded (claim lost, store failure, deadline) with the answer's status. */
function reportSettled(
  trace: DeliveryTrace,
  error: unknown,
  config: EngineConfig<unknown, unknown>,
  request: HttpRequest<unknown>,
): void {
  reportDelivery(trace, outcomeOf(error, true), answerFor(error, config, request)?.status);
}

/**
 * A claimed delivery whose handler runs inside the ticket's open store transaction (DESIGN.md
 * §7): `finish` commits the answer with the receipt, anything else rolls back. When the
 * transaction ends first (the handler deadline), the adapter's `onExpire` sends the guard's
 * answer instead (503 with `Retry-After`).
 */
export class TransactionRun implements PendingRun {
  private ended: Promise<HttpResponseRecord | null> | undefined;
  private expire: ((answer: HttpResponseRecord) => void) | undefined;
  /** The transaction has a deadline: `onExpire` may call back. */
  readonly expires = true;

  constructor(
    private readonly config: EngineConfig<unknown, unknown>,
    private readonly request: HttpRequest<unknown>,
    private readonly open: OpenTransaction<StoredResponse, unknown>,
    /** Set when events are listened to: the run reports its `delivered` event. */
    private readonly trace: DeliveryTrace | undefined,
  ) {
    open.onEnded((error) => {
      // Ended before the handler answered: the guard gave up on the run (its deadline).
      if (this.ended) return;
      this.ended = Promise.resolve(null);
      const answer = answerFor(error, this.config, this.request);
      if (answer && this.expire) this.expire(answer);
      if (this.trace) reportDelivery(this.trace, outcomeOf(error, true), answer?.status);
    });
  }

  enter<T>(fn: () => T): T {
    return this.open.enter(fn);
  }

  onExpire(send: (answer: HttpResponseRecord) => void): void {
    this.expire = send;
  }

  answeredAround(status: number | undefined, how: string): Promise<void> {
    return answerAround(this, status, how);
  }

  finish(response: CapturedResponse): Promise<HttpResponseRecord | null> {
    this.ended ??= this.record(response);
    return this.ended;
  }

  abort(error: unknown): Promise<HttpResponseRecord | null> {
    this.ended ??= this.open.rollback(error).then((lost) => this.failed(lost, undefined));
    return this.ended.then((answer) => answer, nothing);
  }

  /**
   * The run failed and was rolled back. When the store lost the transaction's connection under the
   * handler (`lost`), the handler's failure was the store's: the guard's 503 replaces its answer.
   */
  private failed(
    lost: StoreError | undefined,
    status: number | undefined,
  ): HttpResponseRecord | null {
    const { trace } = this;
    if (!lost) {
      if (trace) reportDelivery(trace, DeliveryOutcome.FAILED, status);
      return null;
    }
    if (trace) reportSettled(trace, lost, this.config, this.request);
    return settledAnswer(lost, this.config, this.request);
  }

  private async record(response: CapturedResponse): Promise<HttpResponseRecord | null> {
    const { open, trace } = this;
    if (!isRecordedStatus(response.status)) {
      const lost = await open.rollback(new UnsuccessfulAnswer(response.status));
      return this.failed(lost, response.status);
    }
    let stored: StoredResponse;
    try {
      stored = encodeFor(response, this.config);
    } catch (error) {
      await open.rollback(error);
      if (trace) reportDelivery(trace, DeliveryOutcome.FAILED, undefined);
      throw error;
    }
    try {
      await open.commit(stored);
      if (trace) reportDelivery(trace, DeliveryOutcome.FIRST, response.status);
      return null;
    } catch (error) {
      if (trace) reportSettled(trace, error, this.config, this.request);
      return settledAnswer(error, this.config, this.request);
    }
  }
}
