/**
 * @module One engine per `@Idempotent()` route, built when the application starts (a bad option
 * fails `app.init()`); `app.close()` writes their stores' ignored-event counts.
 */
import { createEngine, type Engine, mergeOptions } from '@webhook-idempotency/core/adapter';
import { flushIgnored } from '@webhook-idempotency/core/routes';
import type { OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import type { DiscoveryService, Reflector } from '@nestjs/core';
import { IDEMPOTENT_ROUTE } from './constants';
import type { NestIdempotencyOptions, NestRequest, RouteIdempotencyOptions } from './types';

// biome-ignore lint/complexity/noBannedTypes: Nest hands route handlers over as `Function`.
type Handler = Function;

/** The methods of a controller prototype and of the classes it extends. */
function methodsOf(prototype: object): Handler[] {
  const found: Handler[] = [];
  for (let p = prototype; p && p !== Object.prototype; p = Object.getPrototypeOf(p)) {
    for (const name of Object.getOwnPropertyNames(p)) {
      const value = Object.getOwnPropertyDescriptor(p, name)?.value;
      if (name !== 'constructor' && typeof value === 'function') found.push(value as Handler);
    }
  }
  return found;
}

/**
 * The engines of the guarded routes, keyed by route handler: each is the module's options with the
 * route's `@Idempotent(options)` merged over them, checked once at start-up.
 */
export class IdempotencyRegistry implements OnModuleInit, OnModuleDestroy {
  private readonly engines = new Map<Handler, Engine<NestRequest>>();

  constructor(
    private readonly options: NestIdempotencyOptions,
    private readonly discovery: DiscoveryService,
    private readonly reflector: Reflector,
  ) {}

  onModuleInit(): void {
    for (const wrapper of this.discovery.getControllers()) {
      const prototype = (wrapper.metatype as { prototype?: object } | null)?.prototype;
      if (!prototype) continue;
      for (const handler of methodsOf(prototype)) {
        const own = this.reflector.get<RouteIdempotencyOptions | undefined>(
          IDEMPOTENT_ROUTE,
          handler,
        );
        if (own && !this.engines.has(handler)) this.engines.set(handler, this.build(own));
      }
    }
  }

  /** On `app.close()`: writes the ignored-event counts of the routes' stores, so a shutdown keeps its last seconds'. */
  async onModuleDestroy(): Promise<void> {
    const stores = new Set([...this.engines.values()].map((engine) => engine.config.guard.store));
    await Promise.all([...stores].map((store) => flushIgnored(store)));
  }

  /** The engine of `handler`: built at start-up for `@Idempotent()` routes, else from the module options alone. */
  engineFor(handler: Handler): Engine<NestRequest> {
    let engine = this.engines.get(handler);
    if (!engine) {
      engine = this.build(this.reflector.get(IDEMPOTENT_ROUTE, handler) ?? {});
      this.engines.set(handler, engine);
    }
    return engine;
  }

  private build(own: RouteIdempotencyOptions): Engine<NestRequest> {
    return createEngine(mergeOptions(this.options, own));
  }
}
