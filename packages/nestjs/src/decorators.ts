/** @module `@Idempotent()` for a controller method and `@IdempotencyContext()` for its parameter. */
import type { RequestIdempotency } from '@webhook-idempotency/core';
import {
  applyDecorators,
  createParamDecorator,
  type ExecutionContext,
  SetMetadata,
  UseInterceptors,
} from '@nestjs/common';
import { IDEMPOTENT_ROUTE } from './constants';
import { IdempotencyInterceptor } from './interceptor';
import type { NestRequest, RouteIdempotencyOptions } from './types';

/**
 * Guards a controller method: every retry of a webhook is answered from its receipt. `options`
 * (a `preset`, or `provider` + `key`, or any other option) are merged over the module's.
 * Runs after guards, before pipes (Nest's order); needs `IdempotencyModule.forRoot(...)`.
 * @throws {ConfigError} at `app.init()`, naming an invalid option.
 * @example
 * \@Post('payme')
 * \@HttpCode(200)
 * \@Idempotent({ preset: providers.payme({ password }) })
 * perform(@Body() body: unknown) { … }
 * @see docs/adapters/nestjs.md
 */
export function Idempotent(options: RouteIdempotencyOptions = {}): MethodDecorator {
  return applyDecorators(
    SetMetadata(IDEMPOTENT_ROUTE, options),
    UseInterceptors(IdempotencyInterceptor),
  );
}

/**
 * The parameter decorator for the claimed run: key, attempt number and, in transactional mode,
 * the open transaction (`RequestIdempotency<Tx>`). `undefined` on an unguarded (pass-through) request.
 * @example
 * perform(@Body() body: Event, @IdempotencyContext() run: RequestIdempotency<Knex.Transaction>) { … }
 */
export const IdempotencyContext: () => ParameterDecorator = createParamDecorator(
  (_data: unknown, context: ExecutionContext): RequestIdempotency | undefined =>
    context.switchToHttp().getRequest<NestRequest>().idempotency as RequestIdempotency | undefined,
);
