/**
 * @module The family of the presets that take one delivery per request and verify it against a
 * keyring (GitHub, Shopify, GitLab, Twitch, Wise, Discord, Twilio, PayPal, Braintree, the
 * timestamped family, Standard Webhooks, the HTTP Basic family…): the family scopes the
 * delivery's id by the tenant that verified the request and runs the provider's check against
 * every candidate key; a provider's row holds only what is its own (the id, the check, the event
 * name, and what it adds: a fingerprint, a handshake, a replay rule).
 */
import type { HttpRequest, ProviderPreset } from '@webhook-idempotency/core';
import { typed, type TypedPreset } from './events';
import type { Keyring } from './secrets';

/** One provider of the family: what is that provider's, and nothing the family does for all. */
export interface KeyedRow<K> extends Omit<ProviderPreset, 'key' | 'verify'> {
  /** The delivery's id, before the tenant that verified it is put before it; `undefined` when missing. */
  readonly id: (request: HttpRequest) => ReturnType<ProviderPreset['key']>;
  /** The key among `keys` the request is signed (or authenticated) with, or `undefined`. */
  readonly signedWith: (
    request: HttpRequest,
    keys: readonly K[],
  ) => K | undefined | Promise<K | undefined>;
  /** The event name of a delivery, for `preset.eventType(request)`. */
  readonly eventType: (request: HttpRequest) => string | undefined;
}

/** A member's preset from its keyring and row. */
export function keyedPreset<Events extends object, K>(
  ring: Keyring<K>,
  row: KeyedRow<K>,
): TypedPreset<Events> {
  const { id, signedWith, eventType, ...own } = row;
  const preset: ProviderPreset = {
    ...own,
    key: (request) => ring.scope(request, id(request)),
    verify: (request) => ring.verify(request, signedWith),
  };
  return typed<Events>(preset, eventType);
}
