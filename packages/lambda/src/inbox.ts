/** @module `inbox(options, fallback)`: the Lambda inbox endpoint. Translates in, calls the inbox engine, translates out. */
import {
  createFallbackInboxEngine,
  resolveMaxRequestBytes,
} from '@webhook-idempotency/core/adapter';
import type { InboxOptions } from '@webhook-idempotency/core/inbox';
import type { Context } from 'aws-lambda';
import type { LambdaHttpEvent } from './events';
import { type LambdaRequest, readEvent } from './request';
import { captureResult, type LambdaHandlerResult, renderResult } from './result';
import type { GuardedLambdaHandler } from './types';

/** Options of {@link inbox}: the inbox options of every adapter, with the {@link LambdaRequest} in the callbacks, plus the body limit. */
export interface LambdaInboxOptions<E extends LambdaHttpEvent = LambdaHttpEvent>
  extends InboxOptions<LambdaRequest<E>> {
  /** Largest request body read, in bytes: a larger one is answered `413`, nothing stored. Defaults to 1 MiB. */
  maxRequestBytes?: number;
}

/** What answers a request the endpoint hands on unstored (a read, a preset's pass-through, a request without an id with `onMissingKey: 'passthrough'`). */
export type LambdaInboxFallback<E extends LambdaHttpEvent = LambdaHttpEvent> = (
  event: E,
  context: Context,
) => LambdaHandlerResult | Promise<LambdaHandlerResult>;

const NOT_ALLOWED = { status: 405, headers: { allow: 'POST' }, body: Buffer.alloc(0) };

/**
 * Inbox mode (docs/inbox.md) as a Lambda HTTP handler: verifies the signature, stores the
 * delivery's exact bytes and answers 2xx at once, in the result shape of the event's source; a
 * worker function ({@link inboxWorker}, on a schedule) processes it later, exactly once. A bad
 * signature answers 401 and stores nothing; a store failure 503 so the provider retries; a
 * delivery already stored 2xx again without a second row. A request it hands on goes to
 * `fallback`; without one, a read is answered `405`.
 * @throws {ConfigError} at construction, naming an invalid option.
 * @example
 * export const handler = inbox({ inbox: new SqlInbox(db), preset: providers.stripe({ secret }) });
 * @see docs/adapters/lambda.md
 */
export function inbox<E extends LambdaHttpEvent = LambdaHttpEvent>(
  options: LambdaInboxOptions<E>,
  fallback?: LambdaInboxFallback<E>,
): GuardedLambdaHandler<E> {
  const { maxRequestBytes: limit, ...engineOptions } = options ?? {};
  const maxRequestBytes = resolveMaxRequestBytes(limit);
  const engine = createFallbackInboxEngine<LambdaRequest<E>>(engineOptions, fallback);
  return async function inboxEndpoint(event, context) {
    const read = readEvent(event, context, maxRequestBytes);
    if ('tooLarge' in read) return read.tooLarge;
    const { sourced } = read;
    const decision = await engine.accept(read.request);
    if (decision.action === 'respond') return renderResult(decision.response, sourced);
    if (fallback) return captureResult(await fallback(event, context), sourced.source).sent;
    return renderResult(NOT_ALLOWED, sourced);
  };
}
