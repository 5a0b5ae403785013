/**
 * The NestJS module, its `@Idempotent()` route decorator and `@IdempotencyContext()` parameter decorator.
 * @module @webhook-idempotency/nestjs
 */
export { IDEMPOTENCY_OPTIONS } from './constants';
export { Idempotent, IdempotencyContext } from './decorators';
export { IdempotencyInterceptor } from './interceptor';
export { IdempotencyModule } from './module';
export { IdempotencyRegistry } from './registry';
export type {
  NestIdempotencyAsyncOptions,
  NestIdempotencyOptions,
  NestRequest,
  RouteIdempotencyOptions,
} from './types';
