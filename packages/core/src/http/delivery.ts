/**
 * @module One guarded HTTP delivery, from its claim to its one `delivered` event. The engine makes
 * a {@link Delivery} once the request has a key, and the claim's answer goes to it: a replay (its
 * stored text decoded once), a refusal, or a won ticket, on which the handler's run then settles
 * with the ticket's two verbs (complete with the answer's stored text, encoded once; fail). The
 * delivery is its own `PendingRun`, so a run costs no object besides it and its decision, and
 * every way a delivery ends (answered by the engine, recorded, failed, expired) reports through
 * {@link Delivery.end}, the one place that does.
 */
import { DeliveryOutcome } from '../constants';
import { ErrorCode, IdempotencyError, StoreError } from '../errors';
import { Ticket } from '../ticket';
import type { OpenTransaction } from '../ticket-transaction';
import { outcomeOf, type Trace } from '../trace';
import type { ObservedReceipt } from '../types';
import { answerFor, errorAnswer } from './answers';
import type { BatchItems } from './batch';
import { RequestPolicy } from './constants';
import { type Decision, PASS, type PendingRun } from './decision';
import type { EngineConfig } from './options';
import { type CapturedResponse, type DecodedAnswer, isRecordedStatus } from './response-codec';
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

/** What a delivery reads of the engine's options. */
type DeliveryConfig<Tx> = Pick<
  EngineConfig<unknown, Tx>,
  | 'guard'
  | 'preset'
  | 'inProgressStatus'
  | 'onStoreError'
  | 'replayedHeader'
  | 'storeAnswer'
  | 'readAnswer'
>;

/**
 * One delivery of a key: the claim's answer ({@link Delivery.claimed}, {@link Delivery.refused}),
 * then, for a won claim, the engine's `PendingRun`. The handler has already started when the
 * adapter gets the run, so every method only records: `finish` completes (2xx) or fails the
 * ticket, `abort` fails it; when the ticket's transaction ends first (the handler deadline), the
 * adapter's `onExpire` sends the guard's answer instead (503 with `Retry-After`). A batched
 * request's items (`items`) say how its own run ends.
 */
export class Delivery<Tx> implements PendingRun {
  expires = false;
  /** The won claim, once there is one: what the run settles. */
  private ticket: Ticket<unknown, Tx> | undefined;
  /** Set by the first of finish/abort/answeredAround/expiry; later calls get the same answer. */
  private ended: Promise<HttpResponseRecord | null> | undefined;
  private expire: ((answer: HttpResponseRecord) => void) | undefined;

  constructor(
    private readonly config: DeliveryConfig<Tx>,
    private readonly request: HttpRequest,
    private readonly trace: Trace,
    /** When the claim was asked for: a replay's lookup is timed from it. */
    private readonly since: number,
    private readonly items: BatchItems<Tx> | undefined,
  ) {}

  /** The claim's decision: a replay, or the handler's run on the won ticket (in its transaction when the guard is transactional). */
  claimed(claim: Ticket<unknown, Tx> | ObservedReceipt): Decision<Tx> | Promise<Decision<Tx>> {
    if (!(claim instanceof Ticket)) return this.replay(claim);
    this.ticket = claim;
    const { items } = this;
    // A batch's own receipt is settled on its ticket: each item has its own transaction.
    if (items) return { action: 'run', idempotency: items.idempotency(claim.context), run: this };
    if (!this.config.guard.transactional)
      return { action: 'run', idempotency: claim.context, run: this };
    return this.inTransaction(claim);
  }

  /**
   * A claim that failed before the handler started (`claimed`: after it was won): 503 (or
   * pass-through) for a store failure, else the error's answer; an error the engine does not
   * answer is rethrown for the framework.
   */
  refused(error: unknown, claimed = false): Decision<Tx> {
    const pass =
      error instanceof StoreError && this.config.onStoreError === RequestPolicy.PASSTHROUGH;
    const response = pass ? undefined : answerFor(error, this.config, this.request);
    if (!pass && !response) throw error;
    this.end(outcomeOf(error, claimed), response?.status);
    return response ? { action: 'respond', response, replayed: false } : PASS;
  }

  finish(response: CapturedResponse): Promise<HttpResponseRecord | null> {
    const verdict = this.items?.verdict(response.status);
    if (typeof verdict === 'object')
      return 'refused' in verdict
        ? this.refuse(verdict.refused)
        : this.failWith(verdict.failed).then(nothing);
    this.ended ??= this.record(response, verdict === 'recorded');
    return this.ended;
  }

  abort(error: unknown): Promise<HttpResponseRecord | null> {
    const verdict = this.items?.verdict(undefined);
    if (typeof verdict === 'object' && 'refused' in verdict) return this.refuse(verdict.refused);
    return this.failWith(error);
  }

  /**
   * A 2xx that went out around the adapter is completed with an empty body; anything else fails
   * the run as not captured.
   */
  answeredAround(status: number | undefined, how: string): Promise<void> {
    const verdict = this.items?.verdict(status);
    if (typeof verdict === 'object')
      return (
        'refused' in verdict ? this.refuse(verdict.refused) : this.failWith(verdict.failed)
      ).then(ignore);
    if (status === undefined || !isRecordedStatus(status))
      return this.failWith(responseNotCaptured(how)).then(ignore);
    this.ended ??= this.record({ status, headers: {}, body: Buffer.alloc(0) }, false);
    return this.ended.then(ignore, ignore);
  }

  onExpire(send: (answer: HttpResponseRecord) => void): void {
    this.expire = send;
  }

  enter<T>(fn: () => T): T {
    return this.claim().enter(fn);
  }

  /** Opens the ticket's transaction; the decision is ready once the handler can write through it. */
  private async inTransaction(ticket: Ticket<unknown, Tx>): Promise<Decision<Tx>> {
    let open: OpenTransaction<unknown, Tx>;
    try {
      open = await ticket.begin();
    } catch (error) {
      // The transaction could not begin: nothing ran, so the engine answers for it (503). The
      // claim was won: a begin that failed or ran out of time is a failed delivery.
      return this.refused(error, true);
    }
    this.expires = true;
    open.onEnded((error) => this.expired(error));
    return { action: 'run', idempotency: open.context, run: this };
  }

  /** A completed receipt's answer, decoded once, with the replay marker; a receipt that holds none is a store failure (503). */
  private replay(receipt: ObservedReceipt): Decision<Tx> {
    const { config, request } = this;
    let answer: DecodedAnswer | undefined;
    try {
      answer = config.readAnswer(receipt.response ?? 'null');
    } catch (error) {
      return this.refused(
        new StoreError('replay (the stored response could not be decoded)', error),
      );
    }
    this.trace.replayed(receipt.attempts, this.since);
    if (!answer) {
      const cause = new TypeError('the stored response is not an HTTP response record');
      const error = new StoreError('replay (the receipt holds no HTTP response record)', cause);
      const response = errorAnswer(503, error, { 'retry-after': '1' });
      this.end(DeliveryOutcome.STORE_ERROR, response.status);
      return { action: 'respond', response, replayed: false };
    }
    const { preset, replayedHeader } = config;
    if (preset?.replay) {
      const reshaped = preset.replay(answer, request);
      answer = { ...reshaped, headers: { ...reshaped.headers, [replayedHeader]: 'true' } };
    } else answer.headers[replayedHeader] = 'true';
    this.end(DeliveryOutcome.REPLAY, answer.status);
    return { action: 'respond', response: answer, replayed: true };
  }

  /**
   * Ends the run for a reason of the guard's that the handler's answer does not show (an item of a
   * batch held by another worker, refused, or its store failing): the receipt is marked `failed`
   * and the guard's answer for `error` goes out instead of the handler's (or the framework's).
   */
  private refuse(error: unknown): Promise<HttpResponseRecord | null> {
    this.ended ??= this.claim()
      .failOrLost(error)
      .then((lost) => this.unrecorded(lost ?? error));
    return this.ended.then(same, nothing);
  }

  /** Marks the receipt `failed` with `error`; never rejects. */
  private failWith(error: unknown): Promise<HttpResponseRecord | null> {
    this.ended ??= this.claim()
      .failOrLost(error)
      .then((lost) => this.failed(lost, undefined));
    return this.ended.then(same, nothing);
  }

  /** The transaction ended before the handler answered: the guard gave up on the run (its deadline). */
  private expired(error: unknown): void {
    if (this.ended) return;
    this.ended = Promise.resolve(null);
    const answer = answerFor(error, this.config, this.request);
    if (answer && this.expire) this.expire(answer);
    this.end(outcomeOf(error, true), answer?.status);
  }

  /**
   * Records a captured answer: a 2xx completes the ticket with the answer's stored text (encoded
   * once), anything else fails it. With `recordedElsewhere` (a batch whose every item is done under
   * a receipt of its own), a 2xx the ticket cannot keep (taken over once stale, the store failing)
   * still goes out instead of the guard's 409 or 503, which would only make the provider redeliver
   * what is done.
   */
  private record(
    response: CapturedResponse,
    recordedElsewhere: boolean,
  ): Promise<HttpResponseRecord | null> {
    const { status } = response;
    let ticket: Ticket<unknown, Tx>;
    try {
      ticket = this.claim();
    } catch (error) {
      return Promise.reject(error);
    }
    if (!isRecordedStatus(status)) return this.recordFailure(ticket, status);
    let text: string;
    try {
      text = this.config.storeAnswer(response);
    } catch (error) {
      return this.unstorable(ticket, error);
    }
    // One reaction on the completion's own promise (which never throws): no async function around it.
    return ticket.completeEncoded(text).then(
      () => {
        this.end(DeliveryOutcome.FIRST, status);
        return null;
      },
      (error: unknown) => {
        if (!recordedElsewhere || !answerFor(error, this.config, this.request))
          return this.unrecorded(error);
        this.end(outcomeOf(error, true), status);
        return null;
      },
    );
  }

  /** A non-2xx answer: the receipt is marked `failed`, the answer goes out unrecorded. */
  private async recordFailure(
    ticket: Ticket<unknown, Tx>,
    status: number,
  ): Promise<HttpResponseRecord | null> {
    return this.failed(await ticket.failOrLost(new UnsuccessfulAnswer(status)), status);
  }

  /**
   * The answer cannot be stored (`ERR_IDEMPOTENCY_RESPONSE_TOO_LARGE`, the codec's failure): the
   * receipt is failed, the error the framework's.
   */
  private async unstorable(ticket: Ticket<unknown, Tx>, error: unknown): Promise<never> {
    await ticket.failOrLost(error);
    this.end(DeliveryOutcome.FAILED, undefined);
    throw error;
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
    this.end(DeliveryOutcome.FAILED, status);
    return null;
  }

  /** What to send instead of the handler's answer when it could not be recorded (409, 503), else a rejection. */
  private unrecorded(error: unknown): HttpResponseRecord {
    const answer = answerFor(error, this.config, this.request);
    this.end(outcomeOf(error, true), answer?.status);
    if (answer) return answer;
    throw error;
  }

  /** The won ticket: the run's methods are only handed out for a claim that was won. */
  private claim(): Ticket<unknown, Tx> {
    const { ticket } = this;
    if (ticket) return ticket;
    throw new IdempotencyError(
      ErrorCode.CONFIG,
      'This delivery has no claim: its handler does not run',
    );
  }

  /** The delivery's one `delivered` event (with the answer's status when known): every way it ends comes here. */
  private end(outcome: DeliveryOutcome | undefined, status: number | undefined): void {
    this.trace.delivered(outcome, status);
  }
}
