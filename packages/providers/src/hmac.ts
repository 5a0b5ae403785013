/**
 * @module `providers.hmac({ … })`: a preset for a provider this package does not list, whose
 * signature is an HMAC over the raw body (and, for some, a timestamp, the URL or an id), in a few
 * lines of configuration instead of a hand-written `verify`.
 */
import type { HttpRequest, ProviderPreset } from '@webhook-idempotency/core';
import { ConfigError, ErrorCode, IdempotencyError } from '@webhook-idempotency/core';
import { errorAnswer } from '@webhook-idempotency/core/adapter';
import { typed, typedBatch, type TypedPreset } from './events';
import { fingerprintWithout, jsonKey } from './hmac-body';
import { type HmacItems, hmacItems } from './hmac-items';
import { clockOption, oneOf, requireOptions, requireString, toleranceOption } from './options';
import { header } from './request-fields';
import { firstMatch, keyring, type Keyring, type OneOrMany, type SecretResolver } from './secrets';
import {
  hmacMatches,
  isFresh,
  parseUnixSeconds,
  type DigestEncoding,
  type HmacAlgorithm,
  type SignedParts,
} from './signature';

/** What {@link HmacOptions.signedPayload} gets: the parts of the request a provider may sign. */
export interface SignedRequest {
  /** The exact request bytes. */
  readonly body: Buffer;
  /** The signed timestamp as sent (only with {@link HmacOptions.timestamp}), else `undefined`. */
  readonly timestamp: string | undefined;
  /** The request's method and URL (path and query) as the server saw them. */
  readonly method: string;
  readonly url: string;
  /** One request header, lower-case name (`undefined` when absent or repeated). */
  header(name: string): string | undefined;
}

/** Options of {@link hmac}. */
export interface HmacOptions {
  /** The receipts' `provider` column: the provider's name, `'acme'`. Required. */
  provider: string;
  /**
   * The signing secret, or several while you rotate it (any one verifies, in any order). A string
   * is used as its UTF-8 bytes unless `secretEncoding` says otherwise. This or `resolveSecret`.
   */
  secret?: OneOrMany<string | Buffer>;
  /** Looks the secrets up per request instead (a secret per customer): docs/providers.md#secrets-rotation-and-one-per-customer. */
  resolveSecret?: SecretResolver<string | Buffer>;
  /** How a string `secret` is spelled: `'utf8'` (default), `'hex'` or `'base64'`. */
  secretEncoding?: 'utf8' | 'hex' | 'base64';
  /** The header carrying the signature, e.g. `'x-acme-signature'`. Required. */
  signatureHeader: string;
  /** The HMAC's digest: `'sha256'` (default), `'sha1'` or `'sha512'`. */
  algorithm?: HmacAlgorithm;
  /** How the digest is spelled in the header: `'hex'` (default) or `'base64'`. */
  encoding?: DigestEncoding;
  /** Text before the digest in the header, removed before comparing: `'sha256='`, `'v0='`. */
  prefix?: string;
  /**
   * What the provider signs; defaults to the raw body alone. Pieces are fed to the HMAC in order,
   * strings as UTF-8: ``(r) => [`v0:${r.timestamp}:`, r.body]``.
   */
  signedPayload?: (request: SignedRequest) => SignedParts;
  /**
   * A signed timestamp in Unix seconds, read from `header`; a request outside `toleranceSeconds`
   * (default 300) of now is refused before the HMAC is computed. Needs `signedPayload`, which
   * puts `r.timestamp` where the provider signs it.
   */
  timestamp?: { header: string; toleranceSeconds?: number };
  /**
   * The delivery's id: a header name (`'x-acme-delivery'`) or a function of the request. Required,
   * unless `items` says where each event's id is (a request without that array then has no key).
   * `{ json: 'data.id' }`: a dot path in the signed JSON body (a number keyed by its decimal text).
   */
  key?: string | ((request: HttpRequest) => string | undefined) | { json: string };
  /**
   * Dot paths of JSON body fields a retry changes (`'webhook_metadata.attempt'`), left out of the
   * delivery's fingerprint, so that a retry is replayed rather than refused as another body.
   */
  fingerprintOmit?: readonly string[];
  /**
   * For a provider that sends several events in one request: the JSON array in the body
   * (`json: 'events'`), each event's id (`id: 'webhookEventId'`, a dot path inside the event or a
   * function of it) and, optionally, its name (`type`). Each event is then an item under a receipt
   * of its own (docs/providers.md#batched-deliveries); the request is verified as a whole.
   */
  items?: HmacItems;
  /**
   * The status of the answer to a request that fails verification, where the provider documents
   * one other than 401 (GoCardless: 498). A 4xx; defaults to 401.
   */
  unauthorizedStatus?: number;
  /** How a 400 names the id when it is missing. Defaults to the header's name. */
  keyDescription?: string;
  /** The event name of a delivery, for `preset.eventType(request)`. Defaults to none. */
  eventType?: (request: HttpRequest) => string | undefined;
  /** How long to keep receipts: the provider's retry window plus its manual redelivery window. Required. */
  retentionDays: number;
  /** Milliseconds since the epoch, for tests. Defaults to `Date.now`. */
  clock?: () => number;
}

/** How a preset built on {@link hmacPreset} names its secret option, and what it checks first. */
export interface HmacBase {
  /** The factory's name and its secret option, for errors: `{ preset: 'sentry', option: 'clientSecret', what: '…' }`. */
  names?: { preset: string; option: string; what: string };
  /** A check that must pass besides the signature (a timestamp in the body); asked first. */
  precheck?: (request: HttpRequest) => boolean;
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;

function headerName(option: string, value: unknown): string {
  const name = requireString('hmac', option, value, `"${option}", a header name`);
  if (!HEADER_NAME.test(name))
    throw new ConfigError(option, `hmac() needs a lower-case header name, got "${name}"`);
  return name;
}

/** One secret's bytes; a string that is not what `encoding` says fails. */
function secretBytes(
  names: NonNullable<HmacBase['names']>,
  secret: unknown,
  encoding: 'utf8' | 'hex' | 'base64',
): Buffer {
  if (Buffer.isBuffer(secret) && secret.length > 0) return secret;
  const { preset, option, what } = names;
  const text = requireString(preset, option, secret, `${what} as "${option}"`);
  const bytes = Buffer.from(text, encoding);
  // Buffer.from drops what it cannot decode: a secret that is not what `secretEncoding` says fails here.
  if (bytes.length === 0 || (encoding !== 'utf8' && bytes.toString(encoding) !== text))
    throw new ConfigError(option, `${preset}() could not read "${option}" as ${encoding}`);
  return bytes;
}

/**
 * The delivery id reader of `key` (a header's value, a JSON body field, or the function given;
 * none with `items`) and, for a header or a field, how a 400 names it.
 */
function keyReader(
  key: unknown,
  batched: boolean,
): { read: (request: HttpRequest) => string | undefined; description?: string } {
  if (key === undefined && batched) return { read: () => undefined };
  if (typeof key === 'function')
    return { read: key as (request: HttpRequest) => string | undefined };
  if (typeof key === 'object' && key !== null && 'json' in key) return jsonKey(key.json);
  if (typeof key !== 'string')
    throw new ConfigError(
      'key',
      'hmac() needs a header name, { json: "a.dot.path" } or a function of the request as "key"',
    );
  const name = headerName('key', key);
  return { read: (request) => header(request, name), description: `${key} header` };
}

/**
 * The answer to a request that fails verification, where the provider documents a status other
 * than 401: the engine's own error body under that status.
 */
function unauthorizedAnswer(status: unknown): Pick<ProviderPreset, 'unauthorized'> {
  if (status === undefined) return {};
  if (typeof status !== 'number' || !Number.isInteger(status) || status < 400 || status > 499)
    throw new ConfigError(
      'unauthorizedStatus',
      'hmac() needs "unauthorizedStatus" as a 4xx status',
    );
  const answer = errorAnswer(
    status,
    new IdempotencyError(
      ErrorCode.SIGNATURE_INVALID,
      'The request failed verification; no receipt was written',
    ),
  );
  return { unauthorized: () => answer };
}

/** The signature check's settings, each option checked. */
function signatureSettings(o: HmacOptions) {
  const signatureHeader = headerName('signatureHeader', o.signatureHeader);
  const algorithm = oneOf('hmac', 'algorithm', o.algorithm, ['sha256', 'sha1', 'sha512'], 'sha256');
  const encoding = oneOf('hmac', 'encoding', o.encoding, ['hex', 'base64'], 'hex');
  const prefix =
    o.prefix === undefined ? '' : requireString('hmac', 'prefix', o.prefix, '"prefix"');
  if (o.signedPayload !== undefined && typeof o.signedPayload !== 'function')
    throw new ConfigError('signedPayload', 'hmac() needs a function of the request');
  const signedPayload = o.signedPayload ?? ((request: SignedRequest) => [request.body]);
  const stampHeader =
    o.timestamp === undefined ? undefined : headerName('timestamp', o.timestamp?.header);
  // A timestamp the HMAC does not cover would be checked for freshness and then ignored: a
  // captured delivery re-sent with a new stamp would pass. The payload must say where it goes.
  if (stampHeader !== undefined && o.signedPayload === undefined)
    throw new ConfigError(
      'signedPayload',
      'hmac() with a timestamp needs signedPayload, saying where the provider signs it: a function of the request returning the signed parts, r.timestamp among them',
    );
  const tolerance = toleranceOption('hmac', o.timestamp?.toleranceSeconds, 300);
  const now = clockOption('hmac', o.clock);
  return {
    signatureHeader,
    algorithm,
    encoding,
    prefix,
    signedPayload,
    stampHeader,
    tolerance,
    now,
  };
}

/** What was signed, for one request: `undefined` when the request cannot carry a valid signature. */
function signedOf(request: HttpRequest, s: ReturnType<typeof signatureSettings>) {
  const { rawBody } = request;
  const given = header(request, s.signatureHeader);
  if (rawBody === undefined || given === undefined || !given.startsWith(s.prefix)) return undefined;
  let stamp: string | undefined;
  if (s.stampHeader !== undefined) {
    stamp = header(request, s.stampHeader);
    const seconds = parseUnixSeconds(stamp);
    if (seconds === undefined || !isFresh(seconds, s.now(), s.tolerance)) return undefined;
  }
  const parts = s.signedPayload({
    body: rawBody,
    timestamp: stamp,
    method: request.method,
    url: request.url,
    header: (name) => header(request, name),
  });
  return { parts, signature: given.slice(s.prefix.length) };
}

/**
 * The preset {@link hmac} builds, with its keyring (the presets built on it read the secret that
 * verified a request from it, as Zoom's handshake does).
 */
export function hmacPreset(
  options: HmacOptions,
  base: HmacBase = {},
): {
  preset: ProviderPreset;
  ring: Keyring<Buffer>;
  /** With `items`: one item's event name. */
  itemType: ((item: unknown) => string | undefined) | undefined;
} {
  const o = requireOptions('hmac', options);
  const provider = requireString(
    'hmac',
    'provider',
    o.provider,
    'the provider\'s name as "provider"',
  );
  const secretEncoding = oneOf(
    'hmac',
    'secretEncoding',
    o.secretEncoding,
    ['utf8', 'hex', 'base64'],
    'utf8',
  );
  const s = signatureSettings(o);
  const names = base.names ?? { preset: 'hmac', option: 'secret', what: 'the signing secret' };
  const ring = keyring<string | Buffer, Buffer>(
    { ...names, now: s.now, prepare: (secret) => secretBytes(names, secret, secretEncoding) },
    o.secret,
    o.resolveSecret,
  );
  const batch = o.items === undefined ? undefined : hmacItems(o.items, ring);
  const keyOf = keyReader(o.key, batch !== undefined);
  const keyDescription =
    o.keyDescription ?? keyOf.description ?? batch?.description ?? 'delivery id';
  if (typeof o.retentionDays !== 'number' || !(o.retentionDays > 0))
    throw new ConfigError('retentionDays', 'hmac() needs a positive number of days');
  const { precheck } = base;
  const preset: ProviderPreset = {
    provider,
    keyDescription,
    needsRawBody: true,
    retentionDays: o.retentionDays,
    key: (request) => ring.scopeText(request, keyOf.read(request)),
    verify(request) {
      return ring.verify(request, (r, keys) => {
        if (precheck !== undefined && !precheck(r)) return undefined;
        const signed = signedOf(r, s);
        if (signed === undefined) return undefined;
        return firstMatch(keys, (key) =>
          hmacMatches(key, signed.parts, [signed.signature], s.encoding, s.algorithm),
        );
      });
    },
    ...(batch && { items: batch.items }),
    ...fingerprintWithout(o.fingerprintOmit),
    ...unauthorizedAnswer(o.unauthorizedStatus),
  };
  return { preset, ring, itemType: batch?.itemType };
}

/**
 * A preset for any provider that signs with an HMAC: the signature header, its digest and
 * spelling, what is signed (the raw body by default), an optional signed timestamp, and where
 * the delivery id is. The check runs on the raw bytes, in constant time, before any claim; with
 * several secrets, each is tried.
 *
 * @example
 * const preset = providers.hmac({
 *   provider: 'acme',
 *   secret: process.env.ACME_WEBHOOK_SECRET!,
 *   signatureHeader: 'x-acme-signature',
 *   prefix: 'sha256=',
 *   key: 'x-acme-delivery',
 *   retentionDays: 7,
 * });
 * @throws {ConfigError} naming the first invalid option.
 * @see docs/providers.md#any-hmac-provider-hmac
 */
export function hmac<Events extends object = Record<string, unknown>>(
  options: HmacOptions,
): TypedPreset<Events> {
  const { preset, itemType } = hmacPreset(options);
  if (itemType !== undefined) return typedBatch<Events>(preset, itemType);
  const read = options.eventType;
  if (read !== undefined && typeof read !== 'function')
    throw new ConfigError('eventType', 'hmac() needs a function of the request');
  return typed<Events>(preset, read ?? (() => undefined));
}
