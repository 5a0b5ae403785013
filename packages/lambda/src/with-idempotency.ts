/** @module `withIdempotency(options, handler)`: a Lambda HTTP handler guarded. Translates in, calls the engine, translates out. */
import { ConfigError, HandlerTimeout, type RequestIdempotency } from '@webhook-idempotency/core';
import {
  createEngine,
  errorAnswer,
  type HttpResponseRecord,
  type PendingRun,
  resolveMaxRequestBytes,
} from '@webhook-idempotency/core/adapter';
import type { LambdaHttpEvent, SourcedEvent } from './events';
import { readEvent } from './request';
import {
  type CapturedResult,
  captureResult,
  type LambdaHandlerResult,
  type LambdaHttpResult,
  renderResult,
} from './result';
import { resolveTimeMargin, timeLeft } from './time';
import type { GuardedLambdaHandler, LambdaHandler, LambdaIdempotencyOptions } from './types';

/**
 * Guards a Lambda handler for API Gateway REST (payload 1.0), HTTP API and Function URL
 * (payload 2.0) and ALB events: the first delivery runs it and its 2xx result is recorded
 * (status, allow-listed headers, body bytes) before it is returned; each duplicate gets the
 * stored answer in the result shape of its own event source with `Idempotent-Replayed: true`, a
 * duplicate during the run `409`. Signatures are checked over the body's exact bytes (base64
 * decoded where the event says so). The function's remaining time bounds the run: see
 * `timeMarginMs`. An event of another source is refused with `UnsupportedEventError`.
 * @throws {ConfigError} at construction, naming an invalid option.
 * @example
 * export const handler = withIdempotency(
 *   { store, preset: providers.stripe({ secret }) },
 *   async (event, idempotency) => ({ statusCode: 200, body: JSON.stringify({ received: true }) }),
 * );
 * @see docs/adapters/lambda.md
 */
export function withIdempotency<E extends LambdaHttpEvent = LambdaHttpEvent, Tx = unknown>(
  options: LambdaIdempotencyOptions<Tx, E>,
  handler: LambdaHandler<E, Tx>,
): GuardedLambdaHandler<E> {
  const { maxRequestBytes: limit, timeMarginMs, ...engineOptions } = options ?? {};
  const maxRequestBytes = resolveMaxRequestBytes(limit);
  const marginMs = resolveTimeMargin(timeMarginMs);
  if (typeof handler !== 'function')
    throw new ConfigError('handler', 'withIdempotency(options, handler) needs a function');
  const engine = createEngine(engineOptions);
  return async function idempotency(event, context) {
    const read = readEvent(event, context, maxRequestBytes);
    if ('tooLarge' in read) return read.tooLarge;
    const { sourced } = read;
    const decision = await engine.begin(read.request);
    if (decision.action === 'pass')
      return captureResult(await handler(event, undefined, context), sourced.source).sent;
    if (decision.action === 'respond') return renderResult(decision.response, sourced);
    const { run, idempotency } = decision;
    const call = () => handler(event, idempotency, context);
    return settle(run, call, sourced, timeLeft(context, marginMs), idempotency);
  };
}

/** The guard's answer when the function's time runs out first: the receipt failed, 503 with `Retry-After`. */
async function outOfTime(
  run: PendingRun,
  ms: number,
  idempotency: RequestIdempotency<unknown>,
): Promise<HttpResponseRecord> {
  const { provider, externalId } = idempotency.key;
  const error = new HandlerTimeout(
    provider,
    externalId,
    ms,
    "the receipt was marked failed before the function's own timeout",
  );
  const lost = await run.abort(error);
  return lost ?? errorAnswer(503, error, { 'retry-after': '1' });
}

const ignore = (): undefined => undefined;

/**
 * Runs the handler for a claimed delivery and records its result. The guard's transactional
 * deadline, or the function's remaining time (`leftMs`), answers first when it passes.
 */
async function settle(
  run: PendingRun,
  call: () => LambdaHandlerResult | Promise<LambdaHandlerResult>,
  sourced: SourcedEvent,
  leftMs: number | undefined,
  idempotency: RequestIdempotency<unknown>,
): Promise<LambdaHttpResult> {
  const answered = (async () => {
    let recorded: CapturedResult;
    try {
      recorded = captureResult(await run.enter(call), sourced.source);
    } catch (error) {
      // The store lost the handler's transaction under it: the guard's 503, not the error.
      const lost = await run.abort(error);
      if (lost) return renderResult(lost, sourced);
      throw error;
    }
    const replacement = await run.finish(recorded.captured);
    return replacement ? renderResult(replacement, sourced) : recorded.sent;
  })();
  if (!run.expires && leftMs === undefined) return answered;
  const racers: Array<Promise<LambdaHttpResult>> = [answered];
  if (run.expires)
    racers.push(
      new Promise((resolve) => run.onExpire((answer) => resolve(renderResult(answer, sourced)))),
    );
  let timer: NodeJS.Timeout | undefined;
  if (leftMs !== undefined)
    racers.push(
      new Promise((resolve, reject) => {
        timer = setTimeout(() => {
          outOfTime(run, leftMs, idempotency).then(
            (answer) => resolve(renderResult(answer, sourced)),
            reject,
          );
        }, leftMs);
      }),
    );
  // What the handler does after the guard answered is dropped, its error included.
  answered.catch(ignore);
  try {
    return await Promise.race(racers);
  } finally {
    clearTimeout(timer);
  }
}
