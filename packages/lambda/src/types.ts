/** @module Public types of the Lambda adapter: its options, the handler it guards and the handler it returns. */
import type { IdempotencyOptions, RequestIdempotency } from '@webhook-idempotency/core';
import type { Context } from 'aws-lambda';
import type { LambdaHttpEvent } from './events';
import type { LambdaRequest } from './request';
import type { LambdaHandlerResult, LambdaHttpResult } from './result';

/**
 * Options of {@link withIdempotency}: the one options shape of every adapter, with the
 * {@link LambdaRequest} in the callbacks (`key`, `provider`, `verify`), plus the body limit and
 * the part of the function's remaining time kept back for the guard.
 * @typeParam E the event type the handler declares.
 */
export interface LambdaIdempotencyOptions<Tx = unknown, E extends LambdaHttpEvent = LambdaHttpEvent>
  extends IdempotencyOptions<LambdaRequest<E>, Tx> {
  /**
   * The provider's id for this delivery, from the request's lower-cased headers (or its event).
   * `undefined`, `null` or `''` count as no key (answered 400 `ERR_IDEMPOTENCY_KEY_MISSING`, or
   * handed on with `onMissingKey: 'passthrough'`). Required without `preset`.
   * @example
   * key: (request) => request.headers['x-github-delivery']
   */
  key?: IdempotencyOptions<LambdaRequest<E>, Tx>['key'];
  /** Largest request body read, in bytes: a larger one is answered `413` before the guard runs. Defaults to 1 MiB. */
  maxRequestBytes?: number;
  /**
   * Milliseconds of the function's remaining time (`context.getRemainingTimeInMillis()`) kept
   * back for the guard: a handler still running that close to the function's timeout is given
   * up on. Its receipt is marked `failed` (a transaction rolled back) and the caller answered 503
   * with `Retry-After`, so the provider's retry runs it again at once instead of waiting out a
   * claim Lambda's timeout would have left `processing`. Defaults to 1000.
   */
  timeMarginMs?: number;
}

/**
 * The handler {@link withIdempotency} guards: the event (its body still as sent: read it with
 * `bodyOf(event)`), what the guard knows of this delivery (`undefined` when the request passed
 * through unguarded) and the invocation's context. It returns its source's result
 * (`{ statusCode, headers, body }`, or any JSON value for payload 2.0).
 */
export type LambdaHandler<E extends LambdaHttpEvent = LambdaHttpEvent, Tx = unknown> = (
  event: E,
  idempotency: RequestIdempotency<Tx> | undefined,
  context: Context,
) => LambdaHandlerResult | Promise<LambdaHandlerResult>;

/** A Lambda function handler for HTTP events: what you export as `handler`. */
export type GuardedLambdaHandler<E extends LambdaHttpEvent = LambdaHttpEvent> = (
  event: E,
  context: Context,
) => Promise<LambdaHttpResult>;
