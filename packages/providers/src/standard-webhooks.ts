/** @module Standard Webhooks / Svix preset: `webhook-id` as the key, `v1,<base64>` signatures with the `whsec_` secret. */
import type { HttpRequest } from '@webhook-idempotency/core';
import { ConfigError } from '@webhook-idempotency/core';
import type { PresetFactory, TypedPreset } from './events';
import { keyedPreset } from './keyed-preset';
import {
  clockOption,
  optionalString,
  requireOptions,
  requireString,
  toleranceOption,
} from './options';
import { bodyField, header } from './request-fields';
import { firstMatch, type SecretOptions, stringKeyring } from './secrets';
import { timestampedHmac } from './timestamped-hmac';

/**
 * Options of {@link standardWebhooks}: `secret`, the endpoint secret (`whsec_` followed by base64;
 * the prefix may be left out), or several while you rotate it; or `resolveSecret`, a lookup per
 * request.
 */
export type StandardWebhooksOptions = SecretOptions<'secret', string> & StandardWebhooksSettings;

/** The settings of {@link standardWebhooks} besides its secrets. */
export interface StandardWebhooksSettings {
  /** Accepted distance between `webhook-timestamp` and now. Defaults to 300 (the reference libraries' 5 minutes). */
  toleranceSeconds?: number;
  /**
   * Scopes the key: `endpoint:webhook-id`. Set it when one receipts table serves several senders
   * or endpoints whose ids could collide. Defaults to no scope (the bare `webhook-id`).
   */
  endpoint?: string;
  /** The receipts' provider name, e.g. the sending service. Defaults to `'standard-webhooks'`. */
  provider?: string;
  /** Milliseconds since the epoch, for tests. Defaults to `Date.now`. */
  clock?: () => number;
  /**
   * How the secret becomes the HMAC key: `'base64'` (the spec: the base64 after `whsec_`) or
   * `'utf8'` (the secret's own bytes, as a sender that hands its raw secret to a Standard
   * Webhooks library base64-encoded). Defaults to `'base64'`.
   */
  secretEncoding?: SecretEncoding;
}

/** How a secret becomes the HMAC key: see {@link StandardWebhooksSettings.secretEncoding}. */
export type SecretEncoding = 'base64' | 'utf8';

/**
 * What a sender built on this preset sets for itself (the catalogue's members, not an option):
 * its retention, the secret's decodings tried in order, a prefix its console shows before the
 * secret, and how its events are named.
 */
export interface StandardWebhooksSender {
  readonly retentionDays?: number;
  /** Each decoding that applies gives one candidate key; one must. Defaults to `secretEncoding`. */
  readonly encodings?: readonly SecretEncoding[];
  /** Removed from the start of a secret before it is decoded (Supabase shows `v1,whsec_…`). */
  readonly secretPrefix?: string;
  /** The event name of a delivery. Defaults to the body's `type`. */
  readonly eventType?: (request: HttpRequest) => string | undefined;
}

const PREFIX = 'whsec_';
const SCHEME = 'v1,';
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** `webhook-*` headers, or Svix's `svix-*` ones when no `webhook-id` was sent. */
function headerNames(request: HttpRequest): { id: string; timestamp: string; signature: string } {
  return request.headers['webhook-id'] !== undefined
    ? { id: 'webhook-id', timestamp: 'webhook-timestamp', signature: 'webhook-signature' }
    : { id: 'svix-id', timestamp: 'svix-timestamp', signature: 'svix-signature' };
}

/**
 * The candidate keys of an endpoint secret, one per decoding that applies: the base64 after
 * `whsec_` (the prefix is optional), or the secret's UTF-8 bytes.
 */
function decodeSecret(
  preset: string,
  text: string,
  encodings: readonly SecretEncoding[],
): Buffer[] {
  const encoded = text.startsWith(PREFIX) ? text.slice(PREFIX.length) : text;
  const base64 = encoded.length > 0 && BASE64.test(encoded);
  const keys = encodings.flatMap((encoding) => {
    if (encoding === 'utf8') return [Buffer.from(text, 'utf8')];
    return base64 ? [Buffer.from(encoded, 'base64')] : [];
  });
  if (keys.length === 0) {
    throw new ConfigError(
      'secret',
      `${preset}() needs the endpoint secret as "whsec_" followed by base64`,
    );
  }
  return keys;
}

/** The decodings a preset tries: the sender's own, else the `secretEncoding` option's. */
function encodingsOf(
  preset: string,
  given: unknown,
  sender: StandardWebhooksSender,
): readonly SecretEncoding[] {
  if (given !== undefined && given !== 'base64' && given !== 'utf8') {
    throw new ConfigError('secretEncoding', `${preset}() takes secretEncoding 'base64' or 'utf8'`);
  }
  return sender.encodings ?? [given ?? 'base64'];
}

/**
 * A Standard Webhooks payload as this preset reads it: the spec's `type` (the event name). The
 * spec's `timestamp` and `data` are the sender's own; no SDK types them.
 */
export interface StandardWebhooksMinimalEvent {
  readonly type: string;
}

/** Standard Webhooks events: any name, each a {@link StandardWebhooksMinimalEvent}. */
export type StandardWebhooksMinimalEvents = Record<string, StandardWebhooksMinimalEvent>;

/**
 * Standard Webhooks preset, which also reads Svix's `svix-id` / `svix-timestamp` /
 * `svix-signature` headers (docs/providers.md#standard-webhooks--svix).
 *
 * - **Key**: `webhook-id` (or `svix-id`), which the spec keeps the same across retries and means as
 *   the idempotency key; `endpoint:webhook-id` when `endpoint` is set.
 * - **Pass-through**: none.
 * - **Signature**: `webhook-signature` is a space-separated list of `v1,<base64>` entries (several
 *   during a secret rotation; `v1a` asymmetric entries are ignored). Each is compared in constant
 *   time with base64 HMAC-SHA256(key, `${id}.${timestamp}.${rawBody}`), the key being the
 *   base64-decoded secret (or its UTF-8 bytes with `secretEncoding: 'utf8'`).
 *   `webhook-timestamp` must be within `toleranceSeconds` either way; retries are re-signed with a
 *   fresh timestamp, so the tolerance does not limit redeliveries.
 * - **Retention**: 30 days. The spec's example schedule retries for about 75 hours (Svix about
 *   27.6 hours) and manual replays come on top; the spec's "5 minutes in redis" is far too short.
 *   Never answer a duplicate with 410: the spec reads it as "disable this endpoint".
 *
 * @example
 * import * as providers from '@webhook-idempotency/providers';
 * const preset = providers.standardWebhooks({ secret: process.env.WEBHOOK_SECRET!, provider: 'resend' });
 * preset.key(request); // 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W'
 * - **Events**: `eventType(request)` is the payload's `type`.
 *
 * @throws {ConfigError} naming `secret`, `resolveSecret`, `toleranceSeconds`, `endpoint`, `provider`, `clock` or `secretEncoding` when invalid.
 * @see docs/providers.md#standard-webhooks--svix
 */
export const standardWebhooks: PresetFactory<
  StandardWebhooksOptions,
  StandardWebhooksMinimalEvents
> = (options) => {
  return standardWebhooksAs('standardWebhooks', options);
};

/** {@link standardWebhooks}, its errors naming the factory `preset` (Clerk and Resend are built on it). */
export function standardWebhooksAs<Events extends object>(
  preset: string,
  options: StandardWebhooksOptions,
  sender: StandardWebhooksSender = {},
): TypedPreset<Events> {
  const { toleranceSeconds, endpoint, provider, clock, secretEncoding } = requireOptions(
    preset,
    options,
  );
  const now = clockOption(preset, clock);
  const encodings = encodingsOf(preset, secretEncoding, sender);
  const { secretPrefix = '', eventType = bodyField('type') } = sender;
  const ring = stringKeyring(preset, options, 'secret', 'the endpoint secret (whsec_…)', {
    now,
    toKey: (text) =>
      decodeSecret(
        preset,
        text.startsWith(secretPrefix) ? text.slice(secretPrefix.length) : text,
        encodings,
      ),
  });
  const scope =
    endpoint === undefined ? undefined : requireString(preset, 'endpoint', endpoint, '"endpoint"');
  const name = optionalString(preset, 'provider', provider, 'standard-webhooks');
  const check = timestampedHmac({
    encoding: 'base64',
    toleranceSeconds: toleranceOption(preset, toleranceSeconds, 300),
    now,
  });

  return keyedPreset<Events, Buffer[]>(ring, {
    provider: name,
    keyDescription: 'webhook-id (or svix-id) header',
    needsRawBody: true,
    retentionDays: sender.retentionDays ?? 30,
    // The spec reads 429 as "throttle" and asks senders to honour Retry-After; 503 is a failure.
    backpressureStatus: 429,
    id(request) {
      const id = header(request, headerNames(request).id);
      if (id === undefined || id === '') return undefined;
      return scope === undefined ? id : `${scope}:${id}`;
    },
    signedWith(r, keys) {
      const signature = signatureOf(r);
      return (
        signature &&
        firstMatch(keys, (candidates) => candidates.some((key) => check(key, signature)))
      );
    },
    eventType,
  });
}

/** The signature headers of a request, or `undefined` when it lacks them. */
function signatureOf(request: HttpRequest) {
  const names = headerNames(request);
  const id = header(request, names.id);
  const list = header(request, names.signature);
  const { rawBody } = request;
  if (rawBody === undefined || !id || list === undefined) return undefined;
  return {
    stamp: header(request, names.timestamp),
    signatures: list
      .split(' ')
      .filter((entry) => entry.startsWith(SCHEME))
      .map((entry) => entry.slice(SCHEME.length)),
    signed: (stamp: string) => [`${id}.${stamp}.`, rawBody],
  };
}
