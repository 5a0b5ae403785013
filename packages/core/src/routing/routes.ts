/**
 * @module `routes(preset, table)`: one handler per event name (or prefix, or catch-all), each typed
 * by the preset's event map, as a preset that every adapter's `idempotent()` and `inbox()` take
 * and a handler `createInboxWorker` and the queue bridges take. The guard asks it, before any
 * claim, whether a delivery is routed ({@link Routing.admit}); a route then runs under the
 * delivery's receipt exactly as a handler did before.
 */
import { ConfigError, EventUnrouted, PayloadInvalid } from '../errors';
import type { DeliveryBatch, PresetItem } from '../http/batch-types';
import type { HttpRequest } from '../http/types';
import type { InboxContext } from '../inbox/run';
import type { Delivery } from '../inbox/types';
import type { RunContext } from '../types';
import { type StandardSchema, validate } from './schema';
import { type CompiledRoute, type CompiledTable, compileTable, payloadOf } from './table';
import type {
  EventPreset,
  EventsOf,
  RouteHandler,
  RoutePattern,
  RoutesOptions,
  RouteTable,
  SchemaRoute,
  UnroutedPolicy,
} from './types';

/** A delivery a route takes (or, under `unrouted: 'record'`, no route: `route` undefined). */
export interface Admitted {
  readonly event: string | undefined;
  readonly route: CompiledRoute | undefined;
  /** The payload the handler gets: its schema's output when it has one. */
  readonly payload: unknown;
  /** A batch's admitted items, by their value. */
  readonly items?: ReadonlyMap<unknown, Admitted>;
}

/** What {@link Routing.admit} decided before any claim. */
export type Admission =
  | { readonly kind: 'run'; readonly admitted: Admitted }
  /** No route takes it (`unrouted: 'ignore'`): answer 2xx, claim and store nothing. */
  | { readonly kind: 'ignore'; readonly event: string | undefined }
  /** Its payload failed its schema, or no route takes it under `unrouted: 'refuse'`: 422, nothing stored. */
  | { readonly kind: 'refuse'; readonly error: PayloadInvalid | EventUnrouted };

/** What `routes()` puts on the preset it returns, for the guard, the inbox endpoint and the workers. */
export interface Routing {
  readonly provider: string;
  readonly unrouted: UnroutedPolicy;
  /**
   * Whether a verified request is run, ignored or refused: its event name read, its route found,
   * its payload checked against the route's schema when `check` (the inbox endpoint leaves the
   * check to the worker). A batch is admitted when any item is; each item is checked.
   */
  admit(request: HttpRequest, check: boolean): Promise<Admission>;
  /** Runs an admitted delivery's route under its receipt's context (a batch: each item under its own). */
  run(
    admitted: Admitted,
    context: RunContext<unknown> & { readonly batch?: DeliveryBatch<unknown> },
  ): unknown;
  /** Runs a stored delivery (the inbox worker's and the queue bridges' handler). */
  handle(delivery: Delivery, context: InboxContext<unknown>): Promise<unknown>;
}

/** The preset `routes()` returns: the preset itself (every adapter takes it) and its routing. */
export type RouteSet<P extends EventPreset> = P & { readonly routing: Routing };

/**
 * A route that checks its payload with a Standard Schema (zod, valibot, arktype…) before its
 * handler runs; the handler gets the schema's output.
 * @example
 * routes(preset, { 'payment_intent.succeeded': validated(PaymentSchema, (event) => book(event.data)) });
 */
export function validated<S extends StandardSchema, Tx = unknown>(
  schema: S,
  handler: RouteHandler<NonNullable<S['~standard']['types']>['output'], Tx>,
): SchemaRoute<Tx> {
  return { schema, handler: handler as SchemaRoute<Tx>['handler'] };
}

/** The request a stored delivery was: its headers and exact bytes (its URL is not stored). */
function requestOf(delivery: Delivery): HttpRequest<Delivery> {
  const { headers, body } = delivery;
  return { method: 'POST', url: '', headers, rawBody: body, body: undefined, native: delivery };
}

class RouteRouting implements Routing {
  readonly unrouted: UnroutedPolicy;

  constructor(
    readonly provider: string,
    private readonly preset: EventPreset,
    private readonly table: CompiledTable,
  ) {
    this.unrouted = table.unrouted;
  }

  async admit(request: HttpRequest, check: boolean): Promise<Admission> {
    const items = this.preset.items?.(request);
    if (items !== undefined) return this.admitBatch(items, check);
    const event = this.preset.eventType(request);
    const route = this.table.match(event);
    if (route === undefined) return this.unroutedAdmission(event);
    const admitted = check ? await this.checked(route, event, payloadOf(request)) : undefined;
    if (admitted && 'error' in admitted) return { kind: 'refuse', error: admitted.error };
    return { kind: 'run', admitted: admitted ?? { event, route, payload: payloadOf(request) } };
  }

  run(
    admitted: Admitted,
    context: RunContext<unknown> & { readonly batch?: DeliveryBatch<unknown> },
  ) {
    const { batch } = context;
    if (batch === undefined) return this.runOne(admitted, context);
    const done = batch.each(async (value, itemContext) => {
      const item = admitted.items?.get(value) ?? (await this.itemOnRun(value));
      return this.runOne(item, itemContext);
    });
    return done.then(() => undefined);
  }

  async handle(delivery: Delivery, context: InboxContext<unknown>): Promise<unknown> {
    const request = requestOf(delivery);
    const payload = payloadOf(request);
    // A batched preset's stored delivery is one item of a batch (the inbox endpoint stores one
    // per item, its body the item's JSON): named as the guard names each item of a batch.
    const batched = this.preset.items !== undefined && this.preset.itemType !== undefined;
    const event = batched ? this.itemType(payload) : this.preset.eventType(request);
    const route = this.table.match(event);
    if (route === undefined) {
      if (this.unrouted === 'refuse') throw new EventUnrouted(this.provider, event);
      return undefined;
    }
    const admitted = await this.checked(route, event, payload);
    if ('error' in admitted) throw admitted.error;
    return this.runOne(admitted, context);
  }

  /** Keeps only the items a route takes under `'ignore'` (the preset's `items` of the route set). */
  routedItems(items: readonly PresetItem[] | undefined): readonly PresetItem[] | undefined {
    if (items === undefined || this.unrouted !== 'ignore') return items;
    return items.filter((item) => this.table.match(this.itemType(item.value)) !== undefined);
  }

  private itemType(value: unknown): string | undefined {
    return this.preset.itemType?.(value);
  }

  private runOne(admitted: Admitted, context: RunContext<unknown>): unknown {
    const { route, event, payload } = admitted;
    return route === undefined ? undefined : route.handler(payload, { ...context, event });
  }

  private unroutedAdmission(event: string | undefined): Admission {
    if (this.unrouted === 'ignore') return { kind: 'ignore', event };
    if (this.unrouted === 'refuse')
      return { kind: 'refuse', error: new EventUnrouted(this.provider, event) };
    return { kind: 'run', admitted: { event, route: undefined, payload: undefined } };
  }

  /** The route's payload checked against its schema: admitted with the schema's output, or the refusal. */
  private async checked(
    route: CompiledRoute,
    event: string | undefined,
    payload: unknown,
  ): Promise<Admitted | { readonly error: PayloadInvalid }> {
    if (route.schema === undefined) return { event, route, payload };
    const result = await validate(route.schema, payload);
    if ('issues' in result)
      return { error: new PayloadInvalid(this.provider, event, result.issues) };
    return { event, route, payload: result.value };
  }

  private async admitBatch(items: readonly PresetItem[], check: boolean): Promise<Admission> {
    const admitted = new Map<unknown, Admitted>();
    for (const [index, item] of items.entries()) {
      const event = this.itemType(item.value);
      const route = this.table.match(event);
      if (route === undefined) {
        if (this.unrouted === 'ignore') continue;
        if (this.unrouted === 'refuse')
          return { kind: 'refuse', error: new EventUnrouted(this.provider, event) };
      }
      const one = route && check ? await this.checked(route, event, item.value) : undefined;
      if (one && 'error' in one) {
        const issues = one.error.issues.map((issue) => `item ${index}: ${issue}`);
        return { kind: 'refuse', error: new PayloadInvalid(this.provider, event, issues) };
      }
      admitted.set(item.value, one ?? { event, route, payload: item.value });
    }
    if (admitted.size === 0) return { kind: 'ignore', event: undefined };
    return {
      kind: 'run',
      admitted: { event: undefined, route: undefined, payload: undefined, items: admitted },
    };
  }

  /** An item the admission did not see (a value the batch copied): matched and checked now. */
  private async itemOnRun(value: unknown): Promise<Admitted> {
    const event = this.itemType(value);
    const route = this.table.match(event);
    if (route === undefined) return { event, route, payload: value };
    const admitted = await this.checked(route, event, value);
    if ('error' in admitted) throw admitted.error;
    return admitted;
  }
}

/**
 * Routes a preset's deliveries by event name, each route's handler typed by the preset's event map:
 * `'payment_intent.succeeded'` gets Stripe's `PaymentIntentSucceededEvent` (with the map from
 * `@webhook-idempotency/providers/types/stripe`), a misspelt name does not compile. Keys are event
 * names, prefix wildcards (`'invoice.*'`) or the catch-all `'*'`; the most specific route wins.
 * The result is the preset with its routing: pass it as `preset` to any adapter's `idempotent()`
 * or `inbox()`, and as the provider's handler to `createInboxWorker` and the queue bridges.
 * @throws {ConfigError} for a preset that names no events, or an invalid route or option.
 * @example
 * const stripe = routes(providers.stripe<StripeEvents>({ secret }), {
 *   'payment_intent.succeeded': (event, { transaction }) => book(event.data.object, transaction),
 *   'invoice.*': (event) => syncInvoice(event.data.object),
 * });
 * app.post('/webhooks/stripe', express.raw({ type: '*\/*' }), idempotent({ store, preset: stripe }));
 * @see docs/routing.md
 */
export function routes<P extends EventPreset, K extends RoutePattern<EventsOf<P>>>(
  preset: P,
  table: RouteTable<EventsOf<P>, K, unknown>,
  options: RoutesOptions = {},
): RouteSet<P> {
  if (typeof preset !== 'object' || preset === null || typeof preset.eventType !== 'function')
    throw new ConfigError('preset', 'must be a preset that names its events (eventType)');
  if ((preset as { routing?: unknown }).routing !== undefined)
    throw new ConfigError('preset', 'is a route set already: give routes() the preset itself');
  const compiled = compileTable(table, options.unrouted ?? 'ignore');
  const routing = new RouteRouting(preset.provider, preset, compiled);
  const items = preset.items;
  return {
    ...preset,
    ...(items && {
      items: (request: HttpRequest) => routing.routedItems(items.call(preset, request)),
    }),
    routing,
  };
}

/** The routing of a route set, or `undefined` for a plain preset or handler. */
export function routingOf(value: unknown): Routing | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const routing = (value as { routing?: unknown }).routing;
  return routing instanceof RouteRouting ? routing : undefined;
}
