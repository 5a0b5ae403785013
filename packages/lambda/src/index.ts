/**
 * AWS Lambda adapter: `withIdempotency(options, handler)` guards a handler for API Gateway REST
 * (payload 1.0), HTTP API and Function URL (payload 2.0) and ALB target group events, answering
 * in each source's result shape; `inbox(options)` is the inbox endpoint and `inboxWorker(options)`
 * the function that drains it within its remaining time.
 * @module @webhook-idempotency/lambda
 */
export { withIdempotency } from './with-idempotency';
export { inbox, type LambdaInboxFallback, type LambdaInboxOptions } from './inbox';
export { type InboxDrainResult, inboxWorker, type LambdaInboxWorkerOptions } from './worker';
export {
  type EventSource,
  type LambdaHttpEvent,
  sourceOf,
  type SourcedEvent,
  UnsupportedEventError,
} from './events';
export { bodyOf, type LambdaRequest } from './request';
export type { LambdaHandlerResult, LambdaHttpResult } from './result';
export type { GuardedLambdaHandler, LambdaHandler, LambdaIdempotencyOptions } from './types';
