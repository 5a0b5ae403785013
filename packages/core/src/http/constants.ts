/** @module Defaults and fixed vocabularies of the HTTP engine. */

/** Header that marks a replayed answer. Defaults the `replayedHeader` option. */
export const DEFAULT_REPLAYED_HEADER = 'Idempotent-Replayed';

/** Status of the answer to a duplicate that arrives while the first run holds a fresh claim. */
export const DEFAULT_IN_PROGRESS_STATUS = 409;

/**
 * Largest response body, in bytes, the engine stores for replay (4 MiB). Base64 storage of a
 * binary body takes a third more in the store's text column.
 */
export const DEFAULT_MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

/** An HTTP token (RFC 9110): what a header's name or a method is made of. */
export const HTTP_TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** How the 400 answer names the key when the `key` option returned nothing. */
export const DEFAULT_KEY_DESCRIPTION = 'delivery id';

/** What to do with a request that carries no key (`onMissingKey`) or when the store fails at claim (`onStoreError`). */
export const RequestPolicy = {
  /** Answer with an error (400 for a missing key, 503 for a store failure); the handler does not run. */
  REJECT: 'reject',
  /** Run the handler unguarded: no receipt, no replay. */
  PASSTHROUGH: 'passthrough',
} as const;
/** One of {@link RequestPolicy}. */
export type RequestPolicy = (typeof RequestPolicy)[keyof typeof RequestPolicy];

/**
 * Response headers stored and replayed besides every `x-*` header. Everything else is dropped:
 * `set-cookie`, authentication challenges, hop-by-hop headers, `date`, and `content-length`
 * (recomputed from the stored body).
 */
export const REPLAYED_HEADERS: ReadonlySet<string> = new Set([
  'content-type',
  'content-language',
  'content-encoding',
  'content-disposition',
  'location',
  'etag',
  'last-modified',
  'cache-control',
  'expires',
  'link',
  'vary',
]);

/**
 * Methods that never go through the guard: providers deliver webhooks with POST (PUT, PATCH and
 * DELETE are guarded too), and a read must never be answered from a receipt nor be refused for
 * lacking a delivery id. So `app.use(idempotent(...))` leaves an app's GET routes alone.
 */
export const UNGUARDED_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE']);

/**
 * Largest request body, in bytes, an adapter that reads the body itself (fetch, Hono, Koa's
 * `rawBodyParser()`) takes before answering `413` (1 MiB, as Fastify's `bodyLimit`). Defaults the
 * `maxRequestBytes` option.
 */
export const DEFAULT_MAX_REQUEST_BYTES = 1024 * 1024;
