/**
 * @module What a preset knows of its provider's events: the map from each event name to its
 * payload type (a type only: nothing of it exists at run time), and `eventType(request)`, which
 * reads the name a verified delivery carries. The map is the preset's own minimal type unless the
 * factory is given the provider's SDK types from a `@webhook-idempotency/providers/types/…`
 * entry, which only users with that SDK installed import.
 */
import type { HttpRequest, ProviderPreset } from '@webhook-idempotency/core';

/**
 * A preset that names its provider's events.
 * @typeParam Events the map from event name to payload type (`{ 'payment_intent.succeeded':
 *   Stripe.PaymentIntentSucceededEvent; … }`), read with {@link EventMap}.
 */
export interface TypedPreset<Events extends object = Record<string, unknown>>
  extends ProviderPreset {
  /**
   * The event name of a delivery, read from the fields the preset parses anyway (Stripe's `type`,
   * GitHub's `X-GitHub-Event`, Slack's `event.type`…); `undefined` when it carries none. The name
   * is what the provider sent: ask it of a verified request, and expect names newer than the map.
   */
  eventType(request: HttpRequest): string | undefined;
  /**
   * For a preset whose requests carry several events (SendGrid, HubSpot, Adyen, Meta): the event
   * name of one item's value, as `items(request)` gives it. Their `eventType(request)` is
   * `undefined`: a batch may mix names.
   */
  itemType?(item: unknown): string | undefined;
  /** The event map, as a type: never set at run time. Read it with {@link EventMap}. */
  readonly events?: Events;
}

/**
 * A preset's factory as its family makes it from the provider's row: the user's options in, the
 * preset out, its event map the provider's minimal one unless given another (`stripe<StripeEvents>(…)`).
 */
export type PresetFactory<O, Default extends object> = <Events extends object = Default>(
  options: O,
) => TypedPreset<Events>;

/** The event map of a preset: `EventMap<typeof preset>['payment_intent.succeeded']`. */
export type EventMap<P> = P extends { readonly events?: infer E } ? Exclude<E, undefined> : never;

/** Every event payload of a preset, as one union. */
export type EventOf<P> = EventMap<P>[keyof EventMap<P>];

/** The names a union of events carries in `Field`. */
type NamesOf<Union, Field extends string> = Union extends { readonly [F in Field]: infer N }
  ? N
  : never;

/** The members of `Union` named `Name`: as they are, or narrowed when their field names several. */
type Member<Union, Field extends string, Name> = Union extends { readonly [F in Field]: infer N }
  ? Name extends N
    ? [N] extends [Name]
      ? Union
      : Union & { readonly [F in Field]: Name }
    : never
  : never;

/**
 * The map of a union of events discriminated by a string field (`type` by default): each name to
 * the members that carry it. A member whose field is itself a union of names (Clerk's
 * `Webhook<'user.created' | 'user.updated', …>`) is listed under each, narrowed to it.
 */
export type EventsByType<Union, Field extends string = 'type'> = {
  [Name in NamesOf<Union, Field> & string]: Member<Union, Field, Name>;
};

/** A delivery as a preset reads it when all it reads are string fields of the JSON body: `Named<'id' | 'type'>`. */
export type Named<Field extends string> = { readonly [F in Field]: string };

/** Adds the event map and its reader to a built preset. */
export function typed<Events extends object>(
  preset: ProviderPreset,
  eventType: (request: HttpRequest) => string | undefined,
): TypedPreset<Events> {
  return { ...preset, eventType: safeRead(eventType) };
}

/** Adds the event map and its item reader to a built batched preset. */
export function typedBatch<Events extends object>(
  preset: ProviderPreset,
  itemType: (item: unknown) => string | undefined,
): TypedPreset<Events> {
  return { ...preset, eventType: () => undefined, itemType: safeRead(itemType) };
}

/** A name reader that answers `undefined` instead of throwing on a body it cannot read. */
function safeRead<T>(read: (from: T) => string | undefined) {
  return function eventType(from: T): string | undefined {
    try {
      const name = read(from);
      return typeof name === 'string' && name !== '' ? name : undefined;
    } catch {
      return undefined;
    }
  };
}
