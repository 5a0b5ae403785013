/** @module `IdempotencyModule`: the options (or their factory) and the route registry, for the whole application. */
import { type DynamicModule, Module, type Provider } from '@nestjs/common';
import { DiscoveryModule, DiscoveryService, Reflector } from '@nestjs/core';
import { IDEMPOTENCY_OPTIONS } from './constants';
import { IdempotencyRegistry } from './registry';
import type { NestIdempotencyAsyncOptions, NestIdempotencyOptions } from './types';

const registry: Provider = {
  provide: IdempotencyRegistry,
  useFactory: (
    options: NestIdempotencyOptions,
    discovery: DiscoveryService,
    reflector: Reflector,
  ) => new IdempotencyRegistry(options, discovery, reflector),
  inject: [IDEMPOTENCY_OPTIONS, DiscoveryService, Reflector],
};

function dynamic(options: Provider, imports: readonly unknown[] = []): DynamicModule {
  return {
    module: IdempotencyModule,
    global: true,
    imports: [DiscoveryModule, ...(imports as DynamicModule['imports'] & unknown[])],
    providers: [options, registry],
    exports: [IDEMPOTENCY_OPTIONS, IdempotencyRegistry],
  };
}

/**
 * Registers the guard for the application (a global module): the store (or a ready `guard`) and
 * the options every `@Idempotent()` route starts from. Options are checked at `app.init()`.
 * @example
 * \@Module({ imports: [IdempotencyModule.forRoot({ store: new SqlStore(db) })], controllers: [PaymeController] })
 * export class AppModule {}
 * @see docs/adapters/nestjs.md
 */
// biome-ignore lint/complexity/noStaticOnlyClass: a Nest dynamic module is a class with static factories.
export class IdempotencyModule {
  /** The options as a value. */
  static forRoot<Tx = unknown>(options: NestIdempotencyOptions<Tx>): DynamicModule {
    return dynamic({ provide: IDEMPOTENCY_OPTIONS, useValue: options });
  }

  /**
   * The options from a factory with injected dependencies (the store from a database module).
   * @example
   * IdempotencyModule.forRootAsync({ imports: [DbModule], inject: [DB], useFactory: (db) => ({ store: new SqlStore(db) }) })
   */
  static forRootAsync(options: NestIdempotencyAsyncOptions): DynamicModule {
    const { imports, useFactory, inject = [] } = options;
    return dynamic(
      {
        provide: IDEMPOTENCY_OPTIONS,
        useFactory: useFactory as (...args: unknown[]) => unknown,
        inject: inject as never[],
      },
      imports,
    );
  }
}

Module({})(IdempotencyModule);
