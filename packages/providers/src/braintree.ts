/**
 * @module Braintree preset: the notification's kind, timestamp and a digest of its XML as the key
 * (Braintree sends no id), `bt_signature` (`public_key|hex HMAC-SHA1` under SHA-1 of the private
 * key) over `bt_payload`, and the `bt_challenge` GET answered before anything else.
 */
import { createHash } from 'node:crypto';
import { ConfigError } from '@webhook-idempotency/core';
import type { TypedPreset } from './events';
import { keyedPreset } from './keyed-preset';
import { requireOptions, requireString } from './options';
import { formFields } from './request-fields';
import { handshakeText } from './response';
import { firstMatch, keyring, type SecretOptions } from './secrets';
import { hexEquals, hmac } from './signature';

/** One Braintree API key pair (Control Panel, API keys). */
export interface BraintreeKeyPair {
  /** The API public key: it names which pair in `bt_signature` is yours. */
  readonly publicKey: string;
  /** The API private key of the same pair: the HMAC key is its SHA-1. */
  readonly privateKey: string;
}

/**
 * Options of {@link braintree}: the `publicKey` and `privateKey` of one API key pair; or `keys`,
 * several pairs while you move to a new one (any one verifies; the first answers the challenge);
 * or `resolveSecret`, a lookup per request (one merchant per customer).
 */
export type BraintreeOptions =
  | { publicKey: string; privateKey: string; keys?: undefined; resolveSecret?: undefined }
  | ({ publicKey?: undefined; privateKey?: undefined } & SecretOptions<'keys', BraintreeKeyPair>);

/** A Braintree request's form fields as this preset reads them; the event name is the notification's `kind`. */
export interface BraintreeMinimalNotification {
  readonly bt_signature: string;
  readonly bt_payload: string;
}

/** Braintree's notification kinds: any name, each a {@link BraintreeMinimalNotification}. */
export type BraintreeMinimalEvents = Record<string, BraintreeMinimalNotification>;

/** A key pair ready to use: the public key, and the HMAC key (SHA-1 of the private key). */
interface PreparedPair {
  readonly publicKey: string;
  readonly key: Buffer;
}

/** One half of a key pair: a non-empty string. */
function pairField(pair: BraintreeKeyPair, option: keyof BraintreeKeyPair, what: string): string {
  return requireString('braintree', option, pair[option], `${what} as "${option}"`);
}

function preparePair(pair: BraintreeKeyPair): PreparedPair {
  if (typeof pair !== 'object' || pair === null)
    throw new ConfigError('keys', 'braintree() needs each key pair as { publicKey, privateKey }');
  const publicKey = pairField(pair, 'publicKey', 'the public key');
  if (/[|&]/.test(publicKey))
    throw new ConfigError('publicKey', 'braintree() needs the public key, which has no "|" or "&"');
  const privateKey = pairField(pair, 'privateKey', 'the private key');
  return { publicKey, key: createHash('sha1').update(privateKey, 'latin1').digest() };
}

/** The pairs the options give: `keys`, or the one pair `publicKey` and `privateKey`. */
function givenPairs(o: BraintreeOptions) {
  if (o.publicKey === undefined && o.privateKey === undefined) return o.keys;
  if (o.keys !== undefined)
    throw new ConfigError(
      'keys',
      'braintree() takes "publicKey" and "privateKey", or "keys", not both',
    );
  return { publicKey: o.publicKey as string, privateKey: o.privateKey as string };
}

/** True when `signature` holds, for `pair`'s public key, the HMAC of `payload` under its key. */
function signedWith(pair: PreparedPair, signature: string, payload: string): boolean {
  const mine = signature
    .split('&')
    .map((entry) => entry.split('|'))
    .find(([name, value]) => name === pair.publicKey && value !== undefined);
  const given = mine?.[1];
  if (given === undefined) return false;
  return [payload, `${payload}\n`].some((data) => hexEquals(given, hmac('sha1', pair.key, [data])));
}

const PAYLOAD = /^[A-Za-z0-9+=/\n]+$/;
/** Braintree's challenge is 20 to 32 lower-case hex characters; nothing else is answered. */
const CHALLENGE = /^[a-f0-9]{20,32}$/;
/** A notification document: an optional XML declaration, then one `<notification>` element. */
const NOTIFICATION =
  /^\s*(?:<\?xml[^>]*\?>\s*)?<notification(?:\s[^>]*)?>[\s\S]*<\/notification>\s*$/;

/**
 * The notification XML `bt_payload` carries (base64 of it), or `undefined` when it is not a
 * notification with a kind and a timestamp. The challenge answer is an HMAC under the same key as
 * a signature, of 20 to 32 hex characters: those decode to no XML at all, so requiring a
 * notification is what keeps that answer from ever verifying as a delivery.
 */
function notificationXml(payload: string | undefined): string | undefined {
  if (payload === undefined || !PAYLOAD.test(payload)) return undefined;
  const xml = Buffer.from(payload, 'base64').toString('utf8');
  if (!NOTIFICATION.test(xml)) return undefined;
  return field(xml, 'kind') === undefined || field(xml, 'timestamp') === undefined
    ? undefined
    : xml;
}

/** Text of the first `<tag>` outside the notification's `<subject>` (whose objects may carry their own). */
function field(xml: string, tag: string): string | undefined {
  const outside = xml.replace(/<subject[\s>][\s\S]*<\/subject>/, '');
  const match = new RegExp(`<${tag}(?:\\s[^>]*)?>([^<]+)</${tag}>`).exec(outside);
  return match?.[1]?.trim() || undefined;
}

/** The query parameter `name` of a request URL, if any. */
function queryParam(url: string, name: string): string | null {
  const query = url.indexOf('?');
  return query === -1 ? null : new URLSearchParams(url.slice(query + 1).split('#')[0]).get(name);
}

/**
 * Braintree webhook preset (transactions, subscriptions, disputes, disbursements… set up in the
 * Control Panel).
 *
 * - **Key**: `{kind}:{timestamp}:{digest}`, the digest being the first 32 hex characters of the
 *   SHA-256 of the notification XML. Braintree sends no id: kind and timestamp alone would merge two
 *   subscriptions charged in the same second, while the XML is the snapshot of the one object the
 *   notification is about. A retry resends that snapshot (UNCONFIRMED that it is byte for byte).
 * - **Fingerprint**: SHA-256 of the decoded XML, so a retry that only re-wraps the base64 is replayed.
 * - **Challenge**: the `bt_challenge` GET Braintree sends when a webhook is created is answered
 *   `{publicKey}|{hex HMAC-SHA1 of the challenge}`, only for a challenge of 20 to 32 hex characters,
 *   as Braintree's SDKs do. The answer is an HMAC under the signing key, so `verify` accepts only a
 *   payload that decodes to a notification document (`<notification>` with its `<kind>` and
 *   `<timestamp>`), which no challenge's hex does: the answer never verifies as a delivery.
 * - **Signature**: `bt_signature` lists `public_key|signature` pairs (`&`-separated); the pair with
 *   your public key must be the hex HMAC-SHA1, keyed with the SHA-1 of the private key, of
 *   `bt_payload` (or of it with a trailing newline, which Braintree's SDKs also accept). Form-encoded.
 * - **Retention**: 7 days. Braintree resends hourly for up to 24 hours (3 in the sandbox) until it
 *   gets a 2xx within 30 seconds.
 *
 * @example
 * const preset = providers.braintree({
 *   publicKey: process.env.BRAINTREE_PUBLIC_KEY!,
 *   privateKey: process.env.BRAINTREE_PRIVATE_KEY!,
 * });
 * @throws {ConfigError} naming `publicKey` or `privateKey` when invalid.
 * @see docs/providers.md#braintree
 */
export function braintree<Events extends object = BraintreeMinimalEvents>(
  options: BraintreeOptions,
): TypedPreset<Events> {
  const o = requireOptions('braintree', options);
  const ring = keyring<BraintreeKeyPair, PreparedPair>(
    { preset: 'braintree', option: 'keys', what: 'an API key pair', prepare: preparePair },
    givenPairs(o),
    o.resolveSecret,
  );

  return keyedPreset<Events, PreparedPair>(ring, {
    provider: 'braintree',
    keyDescription: 'kind and timestamp in bt_payload',
    needsRawBody: false,
    retentionDays: 7,
    id(request) {
      const xml = notificationXml(formFields(request).get('bt_payload'));
      if (xml === undefined) return undefined;
      const digest = createHash('sha256').update(xml).digest('hex').slice(0, 32);
      return `${field(xml, 'kind')}:${field(xml, 'timestamp')}:${digest}`;
    },
    fingerprint(request) {
      const xml = notificationXml(formFields(request).get('bt_payload'));
      return xml === undefined ? undefined : createHash('sha256').update(xml).digest('hex');
    },
    challenge(request) {
      const challenge = queryParam(request.url, 'bt_challenge');
      if (challenge === null || !CHALLENGE.test(challenge)) return undefined;
      // Answered by the first pair: the fixed ones, or a tenant's already looked up (a GET
      // cannot wait for a lookup); otherwise the read passes to your route.
      const pair = ring.peek(request)?.[0];
      if (pair === undefined) return undefined;
      const answer = hmac('sha1', pair.key, [challenge]).toString('hex');
      return handshakeText(200, `${pair.publicKey}|${answer}`);
    },
    signedWith(r, pairs) {
      const fields = formFields(r);
      const signature = fields.get('bt_signature');
      const payload = fields.get('bt_payload');
      // Only a notification is a delivery: never the challenge's hex, which the answer signs.
      if (signature === undefined || payload === undefined || !notificationXml(payload))
        return undefined;
      return firstMatch(pairs, (pair) => signedWith(pair, signature, payload));
    },
    eventType: (request) => {
      const xml = notificationXml(formFields(request).get('bt_payload'));
      return xml === undefined ? undefined : field(xml, 'kind');
    },
  });
}
