/** @module `@Idempotent()` for a controller method and `@IdempotencyContext()` for its parameter. */
import { Req, SetMetadata, UseInterceptors } from '@nestjs/common';
import { IDEMPOTENT_ROUTE } from './constants';
import { IdempotencyInterceptor, invokeGuarded } from './interceptor';
import type { RouteIdempotencyOptions } from './types';

/** Metadata on a method: the indexes of its `@IdempotencyContext()` parameters. */
const CONTEXT_PARAMS = '@webhook-idempotency/nestjs:context-params';

type Method = (this: unknown, ...args: unknown[]) => unknown;

/**
 * The method, wrapped: Nest calls it after guards and pipes, with the request as one more, last
 * argument (a `@Req()` of its own); the wrapper claims, then calls the method with its own
 * arguments and the run's value in its `@IdempotencyContext()` parameters. The method's metadata
 * (route, status code, headers, types) is copied onto the wrapper.
 */
function guardedMethod(target: object, key: string | symbol, method: Method): Method {
  const contexts: number[] = Reflect.getMetadata(CONTEXT_PARAMS, target, key) ?? [];
  const paramtypes: unknown[] = Reflect.getMetadata('design:paramtypes', target, key) ?? [];
  const count = Math.max(method.length, paramtypes.length, ...contexts.map((i) => i + 1));
  Req()(target, key, count);
  const guarded = function guarded(this: unknown, ...args: unknown[]): unknown {
    const own = args.slice(0, count);
    return invokeGuarded(args[count], (idempotency) => {
      for (const index of contexts) own[index] = idempotency;
      return method.apply(this, own);
    });
  };
  for (const name of Reflect.getMetadataKeys(method))
    Reflect.defineMetadata(name, Reflect.getMetadata(name, method), guarded);
  Object.defineProperty(guarded, 'name', { value: method.name });
  return guarded;
}

/**
 * Guards a controller method: every retry of a webhook is answered from its receipt. `options`
 * (a `preset`, or `provider` + `key`, or any other option) are merged over the module's. The claim
 * is made after guards and pipes, so a request they refuse leaves no receipt. Needs
 * `IdempotencyModule.forRoot(...)` (or `forRootAsync`) in the application.
 * @throws {ConfigError} at `app.init()`, naming an invalid option.
 * @example
 * \@Post('payme')
 * \@HttpCode(200)
 * \@Idempotent({ preset: providers.payme({ password }) })
 * perform(@Body() body: unknown) { … }
 * @see docs/adapters/nestjs.md
 */
export function Idempotent(options: RouteIdempotencyOptions = {}): MethodDecorator {
  return function idempotent<T>(
    target: object,
    key: string | symbol,
    descriptor: TypedPropertyDescriptor<T>,
  ): TypedPropertyDescriptor<T> {
    const guarded = guardedMethod(target, key, descriptor.value as Method) as T;
    const wrapped = { ...descriptor, value: guarded };
    SetMetadata(IDEMPOTENT_ROUTE, options)(target, key, wrapped);
    UseInterceptors(IdempotencyInterceptor)(target, key, wrapped);
    return wrapped;
  };
}

/**
 * The parameter decorator for the claimed run: key, attempt number and, in transactional mode,
 * the open transaction (`RequestIdempotency<Tx>`). `undefined` on a request that passes through
 * unguarded. Only on a method with `@Idempotent()`.
 * @example
 * perform(@Body() body: Event, @IdempotencyContext() run: RequestIdempotency<Knex.Transaction>) { … }
 */
export function IdempotencyContext(): ParameterDecorator {
  return function idempotencyContext(target, key, index) {
    if (key === undefined) return;
    const indexes: number[] = Reflect.getMetadata(CONTEXT_PARAMS, target, key) ?? [];
    Reflect.defineMetadata(CONTEXT_PARAMS, [...indexes, index], target, key);
  };
}
