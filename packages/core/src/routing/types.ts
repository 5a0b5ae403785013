/**
 * @module The types of a route set: which names a route may be written under (an event of the
 * preset's map, a prefix wildcard such as `'invoice.*'`, or the catch-all `'*'`), and what its
 * handler gets (the event's type, or its schema's output). Types only.
 */
import type { HttpRequest, ProviderPreset } from '../http/types';
import type { RunContext } from '../types';
import type { StandardSchema } from './schema';

/** A preset that names the event of a delivery (every preset of `@webhook-idempotency/providers`). */
export interface EventPreset extends ProviderPreset {
  /** The event name a verified request carries; `undefined` when it carries none. */
  eventType(request: HttpRequest): string | undefined;
  /** A batched preset's name of one item's value. */
  itemType?(item: unknown): string | undefined;
  /** The event map, as a type only. */
  readonly events?: object;
}

/** The event map a preset carries (`{ 'payment_intent.succeeded': …; … }`); any name when it carries none. */
export type EventsOf<P> = P extends { readonly events?: infer E }
  ? MapOf<Exclude<E, undefined>>
  : Record<string, unknown>;

/** A map as it is, or any name to `unknown` for a type that names no event (`object`, `never`). */
type MapOf<E> = [E] extends [never]
  ? Record<string, unknown>
  : [keyof E] extends [never]
    ? Record<string, unknown>
    : E;

/** The prefix wildcards a dotted name belongs to: `'a.b.c'` gives `'a.*'` and `'a.b.*'`. */
export type WildcardsOf<Name extends string> = Name extends `${infer Head}.${infer Rest}`
  ? `${Head}.*` | `${Head}.${WildcardsOf<Rest>}`
  : never;

/** The names a route may be written under: an event name, a prefix wildcard of one, or `'*'`. */
export type RoutePattern<Events> =
  | (keyof Events & string)
  | WildcardsOf<keyof Events & string>
  | '*';

/** The event type a pattern takes: the named event, every event under a prefix, or all of them. */
export type EventAt<Events, Pattern> = Pattern extends '*'
  ? Events[keyof Events]
  : Pattern extends keyof Events
    ? Events[Pattern]
    : Pattern extends `${infer Prefix}*`
      ? Events[Extract<keyof Events, `${Prefix}${string}`>]
      : never;

/** What a route's handler gets besides the event: the guard's context, the event's name and, in inbox mode, the run's signal. */
export interface RouteContext<Tx = unknown> extends RunContext<Tx> {
  /** The event name the delivery carried (`undefined` for a catch-all run of a nameless one). */
  readonly event: string | undefined;
  /** In inbox mode, aborted when the worker stops waiting (the run's deadline, a stop). */
  readonly signal?: AbortSignal;
}

/**
 * A route's handler: runs once per delivery, under the delivery's receipt (claim, transaction,
 * replay). Over HTTP its return value is answered as 200 JSON (`undefined`: `{"received":true}`).
 */
export type RouteHandler<Event, Tx = unknown> = (
  event: Event,
  context: RouteContext<Tx>,
) => unknown | Promise<unknown>;

/**
 * A route that checks the payload with a Standard Schema first, as `validated(schema, handler)`
 * builds it (so that the handler's argument is typed as the schema's output).
 */
export interface SchemaRoute<Tx = unknown> {
  readonly schema: StandardSchema;
  readonly handler: (event: never, context: RouteContext<Tx>) => unknown;
}

/**
 * What becomes of a delivery no route takes: `'ignore'` (the default) answers 2xx and claims,
 * stores and runs nothing (an `ignored` event counts it); `'record'` claims it and completes its
 * receipt with nothing run (in inbox mode: stored, then processed as a no-op), as every delivery
 * was before routing; `'refuse'` answers 422 `ERR_IDEMPOTENCY_EVENT_UNROUTED` and stores nothing,
 * so the provider retries it (after a deploy that routes it). A `'*'` route takes every event
 * the others do not: with one, nothing is unrouted.
 */
export type UnroutedPolicy = 'ignore' | 'record' | 'refuse';

/** Options of `routes(preset, table, options)`. */
export interface RoutesOptions {
  /** What becomes of a delivery no route takes. Defaults to `'ignore'`. */
  readonly unrouted?: UnroutedPolicy;
}

/** The table `routes()` takes: each key a pattern of the preset's events, each value its route. */
export type RouteTable<Events, Keys extends RoutePattern<Events>, Tx> = {
  readonly [K in Keys]: RouteHandler<EventAt<Events, K>, Tx> | SchemaRoute<Tx>;
};
