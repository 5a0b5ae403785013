/**
 * @module `providers.hmac({ … })`: a preset for a provider this package does not list, whose
 * signature is an HMAC over the raw body (and, for some, a timestamp, the URL or an id), in a few
 * lines of configuration instead of a hand-written `verify`.
 */
import type { HttpRequest, ProviderPreset } from '@webhook-idempotency/core';
import { ConfigError } from '@webhook-idempotency/core';
import { clockOption, oneOf, requireOptions, requireString, toleranceOption } from './options';
import { header } from './request-fields';
import { safeVerify } from './safe-verify';
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
  /** The signing secret. A string is used as its UTF-8 bytes unless `secretEncoding` says otherwise. Required. */
  secret: string | Buffer;
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
  /** The delivery's id: a header name (`'x-acme-delivery'`) or a function of the request. Required. */
  key: string | ((request: HttpRequest) => string | undefined);
  /** How a 400 names the id when it is missing. Defaults to the header's name. */
  keyDescription?: string;
  /** How long to keep receipts: the provider's retry window plus its manual redelivery window. Required. */
  retentionDays: number;
  /** Milliseconds since the epoch, for tests. Defaults to `Date.now`. */
  clock?: () => number;
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;

function headerName(option: string, value: unknown): string {
  const name = requireString('hmac', option, value, `"${option}", a header name`);
  if (!HEADER_NAME.test(name))
    throw new ConfigError(option, `hmac() needs a lower-case header name, got "${name}"`);
  return name;
}

function secretBytes(secret: unknown, encoding: 'utf8' | 'hex' | 'base64'): Buffer {
  if (Buffer.isBuffer(secret) && secret.length > 0) return secret;
  const text = requireString('hmac', 'secret', secret, 'the signing secret as "secret"');
  const bytes = Buffer.from(text, encoding);
  // Buffer.from drops what it cannot decode: a secret that is not what `secretEncoding` says fails here.
  if (bytes.length === 0 || (encoding !== 'utf8' && bytes.toString(encoding) !== text))
    throw new ConfigError('secret', `hmac() could not read "secret" as ${encoding}`);
  return bytes;
}

/**
 * A preset for any provider that signs with an HMAC: the signature header, its digest and
 * spelling, what is signed (the raw body by default), an optional signed timestamp, and where
 * the delivery id is. The check runs on the raw bytes, in constant time, before any claim.
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
export function hmac(options: HmacOptions): ProviderPreset {
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
  const key = secretBytes(o.secret, secretEncoding);
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
  if (typeof o.key !== 'function' && typeof o.key !== 'string')
    throw new ConfigError(
      'key',
      'hmac() needs a header name or a function of the request as "key"',
    );
  const keyOf =
    typeof o.key === 'function'
      ? o.key
      : (
          (name: string) => (request: HttpRequest) =>
            header(request, name)
        )(headerName('key', o.key));
  const keyDescription =
    o.keyDescription ?? (typeof o.key === 'string' ? `${o.key} header` : 'delivery id');
  if (typeof o.retentionDays !== 'number' || !(o.retentionDays > 0))
    throw new ConfigError('retentionDays', 'hmac() needs a positive number of days');
  const retentionDays = o.retentionDays;

  return {
    provider,
    keyDescription,
    needsRawBody: true,
    retentionDays,
    key(request) {
      const id = keyOf(request);
      return id === undefined || id === '' ? undefined : id;
    },
    verify: safeVerify(function verifyHmac(request) {
      const { rawBody } = request;
      const given = header(request, signatureHeader);
      if (rawBody === undefined || given === undefined || !given.startsWith(prefix)) return false;
      let stamp: string | undefined;
      if (stampHeader !== undefined) {
        stamp = header(request, stampHeader);
        const seconds = parseUnixSeconds(stamp);
        if (seconds === undefined || !isFresh(seconds, now(), tolerance)) return false;
      }
      const parts = signedPayload({
        body: rawBody,
        timestamp: stamp,
        method: request.method,
        url: request.url,
        header: (name) => header(request, name),
      });
      return hmacMatches(key, parts, [given.slice(prefix.length)], encoding, algorithm);
    }),
  };
}
