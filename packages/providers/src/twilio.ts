/**
 * @module Twilio preset: `I-Twilio-Idempotency-Token` (else the resource SID and a digest of the
 * signed request) as the key, `X-Twilio-Signature` (base64 HMAC-SHA1 of the URL Twilio requested and the sorted POST
 * parameters; a JSON body is signed through the URL's `bodySHA256`) checked under the auth token.
 */
import { createHash } from 'node:crypto';
import type { HttpRequest } from '@webhook-idempotency/core';
import { ConfigError } from '@webhook-idempotency/core';
import type { TypedPreset } from './events';
import { keyedPreset } from './keyed-preset';
import { requireOptions, requireString } from './options';
import { header } from './request-fields';
import { firstMatch, type SecretOptions, stringKeyring } from './secrets';
import { hexEquals, hmacMatches } from './signature';

/**
 * Options of {@link twilio}: `authToken`, the account's auth token (Console, Account Info), or the
 * primary and secondary tokens while you promote one; or `resolveSecret`, a lookup per request
 * (one subaccount per customer).
 */
export type TwilioOptions = SecretOptions<'authToken', string> & {
  /**
   * Scheme, host, port (and any path prefix a proxy strips) of the URL Twilio called, as it is
   * written in Twilio's configuration: `https://example.com`. The request's path and query are
   * appended to it. Twilio signs the URL it requested, so a proxy's `http://10.0.0.5:3000` is not
   * it. Give this or `url`.
   */
  baseUrl?: string;
  /** The full URL Twilio requested, query included, as a function of the request. Give this or `baseUrl`. */
  url?: (request: HttpRequest) => string;
};

/**
 * A Twilio request: its form parameters (`MessageSid`, `CallStatus`…). Twilio names no event in
 * them, so `eventType` gives `undefined`; the helper library types no webhook parameters.
 */
export type TwilioMinimalParameters = Readonly<Record<string, string>>;

/** Twilio's requests: no names, each {@link TwilioMinimalParameters}. */
export type TwilioMinimalEvents = Record<string, TwilioMinimalParameters>;

/** Whether `token` signed `request`: the body hash, then the URL and parameters in each spelling. */
function signedBy(token: string, request: HttpRequest, url: string, given: string): boolean {
  const rawBody = request.rawBody as Buffer;
  const bodyHash = bodyHashOf(url);
  if (bodyHash !== null) {
    const digest = createHash('sha256').update(rawBody).digest();
    if (!hexEquals(bodyHash, digest)) return false;
  }
  const params = bodyHash === null ? signedParams(rawBody) : '';
  return candidateUrls(url).some((candidate) =>
    hmacMatches(token, [candidate, params], [given], 'base64', 'sha1'),
  );
}

const SIGNATURE = /^[A-Za-z0-9+/]{27}=$/;
const BASE_URL = /^https?:\/\/[^/?#\s]+(\/[^?#\s]*)?$/;
/** The resource a request is about, most specific first: the readable part of the fallback key. */
const RESOURCE_SIDS = ['RecordingSid', 'TranscriptionSid', 'MessageSid', 'SmsSid', 'CallSid'];
/** A Twilio SID: two letters naming the kind, 32 hex characters. */
const SID = /^[A-Z]{2}[0-9a-fA-F]{32}$/;

/**
 * `url` without its port, and with the scheme's default port (`:443`, `:80`) when it has none:
 * Twilio may sign either spelling, and its validator tries both.
 */
function withAndWithoutPort(url: string): string[] {
  const match = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#@]*@)?(\[[^\]]*\]|[^/?#:]*)(:\d*)?(.*)$/i.exec(url);
  if (!match) return [url];
  const [, scheme = '', user = '', host = '', port, rest = ''] = match;
  const standard = scheme.toLowerCase() === 'https://' ? ':443' : ':80';
  return [scheme + user + host + rest, scheme + user + host + (port ?? standard) + rest];
}

/** The URLs Twilio may have signed for `url`: as received and as the WHATWG parser spells it, each with and without the default port. */
function candidateUrls(url: string): string[] {
  const urls = withAndWithoutPort(url);
  try {
    const normalised = new URL(url).toString();
    if (normalised !== url) urls.push(...withAndWithoutPort(normalised));
  } catch {
    // Not a URL the parser reads: only the spelling as received can match.
  }
  return [...new Set(urls)];
}

/** The POST parameters as Twilio signs them: sorted by name, a repeated name's distinct values sorted. */
function signedPairs(body: Buffer): Array<[name: string, value: string]> {
  const values = new Map<string, Set<string>>();
  for (const [name, value] of new URLSearchParams(body.toString('utf8'))) {
    const set = values.get(name) ?? new Set<string>();
    set.add(value);
    values.set(name, set);
  }
  const pairs: Array<[string, string]> = [];
  for (const name of [...values.keys()].sort()) {
    for (const value of [...(values.get(name) ?? [])].sort()) pairs.push([name, value]);
  }
  return pairs;
}

/** The POST parameters' part of the signed string: each value after its name, in signing order. */
const signedParams = (body: Buffer) =>
  signedPairs(body)
    .map(([name, value]) => name + value)
    .join('');

/** The `bodySHA256` query parameter of a JSON-bodied webhook's URL, if any. */
function bodyHashOf(url: string): string | null {
  const query = url.indexOf('?');
  if (query === -1) return null;
  return new URLSearchParams(url.slice(query + 1).split('#')[0]).get('bodySHA256');
}

/**
 * The hex SHA-256 of what Twilio signs: the URL it called, a newline, then the sorted parameters
 * form-encoded (a JSON body is in the URL's `bodySHA256`). A retry re-sends exactly that.
 */
function signedDigest(
  request: HttpRequest,
  urlFor: (r: HttpRequest) => string,
): string | undefined {
  const { rawBody } = request;
  if (rawBody === undefined) return undefined;
  const url = urlFor(request);
  if (typeof url !== 'string') return undefined;
  const params = bodyHashOf(url) === null ? signedPairs(rawBody) : [];
  const text = `${url}\n${new URLSearchParams(params).toString()}`;
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

function urlOf(o: TwilioOptions): (request: HttpRequest) => string {
  if (o.url !== undefined && o.baseUrl !== undefined)
    throw new ConfigError('url', 'twilio() takes baseUrl or url, not both');
  if (o.url !== undefined) {
    if (typeof o.url !== 'function')
      throw new ConfigError('url', 'twilio() needs url as a function of the request');
    return o.url;
  }
  const base = requireString(
    'twilio',
    'baseUrl',
    o.baseUrl,
    'the URL Twilio calls, without its path (https://example.com), as "baseUrl" (or a url function)',
  ).replace(/\/+$/, '');
  if (!BASE_URL.test(base))
    throw new ConfigError(
      'baseUrl',
      `twilio() needs baseUrl as https://host[:port][/prefix], without query, got "${o.baseUrl}"`,
    );
  return (request) => base + request.url;
}

/**
 * Twilio preset (Programmable Messaging and Voice webhooks, their status callbacks, and other
 * Twilio webhooks signed with the account's auth token).
 *
 * - **Key**: the `I-Twilio-Idempotency-Token` header, which Twilio's retries of one request repeat
 *   (UNCONFIRMED in Twilio's docs; seen in practice). Without it, the resource SID the request is
 *   about (`RecordingSid`, `TranscriptionSid`, `MessageSid`, `SmsSid`, `CallSid`) and the first 32
 *   hex characters of the SHA-256 of what Twilio signs (the URL it called and the sorted
 *   parameters). The requests of one call repeat its `CallSid` and `CallStatus` (every `<Gather>`
 *   action is `in-progress`), so nothing less than the signed request tells them apart; a retry
 *   re-sends it exactly. Two requests with the same URL and the same parameters are one delivery.
 * - **Fingerprint**: the SHA-256 of the same signed content, so a retry whose form fields come in
 *   another order is the same delivery, and a distinct request never meets a 422 under the
 *   fallback key.
 * - **Signature**: `X-Twilio-Signature` is the base64 HMAC-SHA1, under the auth token, of the full
 *   URL Twilio requested followed by every POST parameter, sorted by name, name then value. A JSON
 *   body is signed through the URL: its `bodySHA256` query parameter is the hex SHA-256 of the body.
 *   The URL is checked as received and as normalised, with and without the default port, as
 *   Twilio's own validator does. No timestamp is signed. The token header is not signed.
 * - **Retention**: 7 days. Twilio retries only a failed connection, within its 15-second budget
 *   (or what the URL's `#rc=`/`#tt=` overrides allow), then tries the fallback URL.
 *
 * Twilio calls with POST unless configured for GET; a GET is never deduplicated (reads pass
 * through unguarded), so configure POST.
 *
 * @example
 * const preset = providers.twilio({
 *   authToken: process.env.TWILIO_AUTH_TOKEN!,
 *   baseUrl: 'https://example.com', // what Twilio calls, not what the proxy forwards to
 * });
 * @throws {ConfigError} naming `authToken`, `resolveSecret`, `baseUrl` or `url` when invalid.
 * @see docs/providers.md#twilio
 */
export function twilio<Events extends object = TwilioMinimalEvents>(
  options: TwilioOptions,
): TypedPreset<Events> {
  const o = requireOptions('twilio', options);
  const ring = stringKeyring('twilio', o, 'authToken', 'the auth token');
  const urlFor = urlOf(o);

  return keyedPreset<Events, string>(ring, {
    provider: 'twilio',
    keyDescription: 'I-Twilio-Idempotency-Token header (or the signed URL and parameters)',
    needsRawBody: true,
    retentionDays: 7,
    id(request) {
      const token = header(request, 'i-twilio-idempotency-token');
      if (token) return token;
      const digest = signedDigest(request, urlFor);
      if (digest === undefined) return undefined;
      const fields = new URLSearchParams(request.rawBody?.toString('utf8') ?? '');
      const sid = RESOURCE_SIDS.map((name) => fields.get(name)).find((v) => v && SID.test(v));
      return sid ? `${sid}:${digest.slice(0, 32)}` : digest.slice(0, 32);
    },
    fingerprint: (request) => signedDigest(request, urlFor),
    signedWith(r, tokens) {
      const given = header(r, 'x-twilio-signature');
      if (r.rawBody === undefined || given === undefined || !SIGNATURE.test(given))
        return undefined;
      const url = urlFor(r);
      if (typeof url !== 'string') return undefined;
      return firstMatch(tokens, (token) => signedBy(token, r, url, given));
    },
    eventType: () => undefined,
  });
}
