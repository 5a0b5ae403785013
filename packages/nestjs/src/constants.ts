/** @module The injection token and the metadata key the module, decorator and interceptor share. */

/** Injection token of the module's options (`IdempotencyModule.forRoot(options)`). */
export const IDEMPOTENCY_OPTIONS = Symbol.for('@webhook-idempotency/nestjs:options');

/** Metadata key `@Idempotent()` sets on a controller method: that route's own options. */
export const IDEMPOTENT_ROUTE = '@webhook-idempotency/nestjs:route';
