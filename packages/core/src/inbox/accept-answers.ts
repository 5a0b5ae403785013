/** @module The inbox endpoint's stored headers and its 2xx answers, resolved once from its options. */
import { ConfigError } from '../errors';
import type { HttpResponseRecord } from '../http/types';

/** The answer of the inbox endpoint when it stored (or already had) the delivery. */
export interface InboxResponse {
  /** A 2xx status. Defaults to 200. */
  status?: number;
  /** The body. Defaults to `{"received":true}`. */
  body?: string | Buffer;
  /** Its content type. Defaults to `application/json; charset=utf-8`. */
  contentType?: string;
}

/**
 * Request headers the inbox stores by default: what a handler or a re-verification may need from
 * the providers with presets. Never `authorization`, cookies or proxy credentials.
 */
export const DEFAULT_INBOX_HEADERS: readonly string[] = [
  'content-type',
  'user-agent',
  'stripe-signature',
  'x-github-event',
  'x-github-delivery',
  'x-github-hook-id',
  'x-hub-signature-256',
  'x-shopify-topic',
  'x-shopify-hmac-sha256',
  'x-shopify-shop-domain',
  'x-shopify-webhook-id',
  'x-shopify-event-id',
  'x-shopify-api-version',
  'x-shopify-triggered-at',
  'webhook-id',
  'webhook-timestamp',
  'webhook-signature',
  'paddle-signature',
  'x-slack-signature',
  'x-slack-request-timestamp',
];

/** Headers that carry credentials: never stored, even when listed. */
const FORBIDDEN_HEADERS: ReadonlySet<string> = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
]);

/** The allow-listed headers to store, lower-cased, checked once. */
export function resolveHeaders(headers: unknown): readonly string[] {
  if (headers === undefined) return DEFAULT_INBOX_HEADERS;
  if (!Array.isArray(headers) || headers.some((h) => typeof h !== 'string' || h === ''))
    throw new ConfigError('headers', 'must be an array of header names');
  const names = headers.map((h: string) => h.toLowerCase());
  const forbidden = names.find((name) => FORBIDDEN_HEADERS.has(name));
  if (forbidden)
    throw new ConfigError(
      'headers',
      `must not include "${forbidden}": credentials are never stored`,
    );
  return [...new Set(names)];
}

/** The answers to a stored delivery and to a duplicate, checked once. */
export function resolveResponse(
  response: InboxResponse | undefined,
  replayedHeader: string,
): {
  stored: HttpResponseRecord;
  duplicate: HttpResponseRecord;
} {
  const {
    status = 200,
    body = '{"received":true}',
    contentType = 'application/json; charset=utf-8',
  } = response ?? {};
  if (!Number.isInteger(status) || status < 200 || status > 299)
    throw new ConfigError('response', `status must be a 2xx status, got ${String(status)}`);
  if (typeof body !== 'string' && !Buffer.isBuffer(body))
    throw new ConfigError('response', 'body must be a string or a Buffer');
  if (typeof contentType !== 'string' || contentType === '')
    throw new ConfigError('response', 'contentType must be a non-empty string');
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8');
  const headers = { 'content-type': contentType, 'cache-control': 'no-store' };
  return {
    stored: { status, headers, body: bytes },
    duplicate: { status, headers: { ...headers, [replayedHeader]: 'true' }, body: bytes },
  };
}
