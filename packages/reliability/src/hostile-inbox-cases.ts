/** @module The inbox hostile-input table's vocabulary: types, request builders, outcomes (the rows are in hostile-inbox-presets.ts and hostile-inbox-own.ts). */
import { createHmac } from 'node:crypto';
import type { RawRequest } from './hostile-client';
import { GITHUB_SECRET, NOW_SECONDS, STRIPE_SECRET } from './hostile-cases';

/**
 * The inbox routes, each on its own app per adapter: `stripe` and `github` use the presets;
 * `signed` has its own `verify` (HMAC-SHA256 of the body in `X-Signature`), its id in
 * `X-Delivery-Id` and the body's `customer` as ordering key; `unverified` stores whatever carries
 * an id (`unverified: true`); `down` is `signed` on an inbox store whose every call fails.
 */
export type InboxRoute = 'stripe' | 'github' | 'signed' | 'unverified' | 'down';

/** The adapters the table runs on. */
export type InboxFamily = 'express' | 'fastify' | 'koa' | 'fetch' | 'hono' | 'nestjs';

/** One expected answer. */
export interface InboxExpected {
  readonly status: number;
  /** The `code` of the JSON error answer, when the endpoint refused. */
  readonly code?: string;
  /** `true`: answered as a duplicate (`Idempotent-Replayed: true`). */
  readonly replayed?: boolean;
  /** Who answered when it is not the inbox (shown in the table). */
  readonly by?: string;
}

/** What a case must leave behind. */
export interface InboxOutcome {
  readonly answers: readonly InboxExpected[];
  /** Rows the case adds to the deliveries table. */
  readonly rows: number;
  /** The request whose exact bytes are stored under the case's key (0-based); `undefined`: none stored. */
  readonly storedFrom?: number;
  /** The ordering key the stored delivery has. Defaults to `null`. */
  readonly orderingKey?: string | null;
}

/** One row of the table. */
export interface InboxCase {
  readonly name: string;
  readonly sent: string;
  readonly route: InboxRoute;
  readonly requests: readonly RawRequest[];
  /** The delivery's external id, checked with `find`; `undefined` when the request has no valid one. */
  readonly key?: string;
  readonly expect: InboxOutcome;
  readonly on?: Partial<Record<InboxFamily, InboxOutcome>>;
}

/** The shared secret of the `signed` and `down` routes. */
export const SIGNED_SECRET = 'inbox_hostile_3f9a';

const JSON_TYPE = 'application/json';
const bytes = (body: string | Buffer) => (typeof body === 'string' ? Buffer.from(body) : body);
/** Lower-case hex HMAC-SHA256 of `data`: the `signed` route's `X-Signature`. */
export const hmac = (secret: string, data: string | Buffer) =>
  createHmac('sha256', secret).update(data).digest('hex');

/** A request with `body`, JSON unless `contentType` says otherwise (`null`: none). */
export function req(
  body: string | Buffer,
  headers: Record<string, string | string[]> = {},
  contentType: string | null = JSON_TYPE,
): RawRequest {
  return {
    headers: contentType === null ? headers : { 'content-type': contentType, ...headers },
    body: bytes(body),
  };
}

/** A signed Stripe request. */
export function stripeReq(
  body: string,
  options: { t?: number; secret?: string; signedBody?: string; contentType?: string | null } = {},
): RawRequest {
  const { t = NOW_SECONDS, secret = STRIPE_SECRET, signedBody = body } = options;
  const v1 = createHmac('sha256', secret).update(`${t}.${signedBody}`).digest('hex');
  return req(body, { 'stripe-signature': `t=${t},v1=${v1}` }, options.contentType ?? JSON_TYPE);
}

/** A signed GitHub request with its delivery id. */
export function githubReq(
  body: string,
  delivery: string | undefined,
  options: { secret?: string; signedBody?: string } = {},
): RawRequest {
  const { secret = GITHUB_SECRET, signedBody = body } = options;
  const headers: Record<string, string> = {
    'x-hub-signature-256': `sha256=${hmac(secret, signedBody)}`,
    'x-github-event': 'push',
  };
  if (delivery !== undefined) headers['x-github-delivery'] = delivery;
  return req(body, headers);
}

/** A request on the `signed` route: `X-Delivery-Id`, `X-Signature` over `signedBody` (default: the body). */
export function signedReq(
  id: string | string[] | undefined,
  body: string | Buffer = '{"type":"ping"}',
  options: {
    secret?: string;
    signedBody?: string | Buffer;
    headers?: Record<string, string>;
    unsigned?: boolean;
  } = {},
): RawRequest {
  const { secret = SIGNED_SECRET, signedBody = body, headers = {}, unsigned = false } = options;
  return req(body, {
    ...(id === undefined ? {} : { 'x-delivery-id': id }),
    ...(unsigned ? {} : { 'x-signature': hmac(secret, bytes(signedBody)) }),
    ...headers,
  });
}

/** A Stripe event body with `id` (any JSON value) and `extra` members appended as raw JSON text. */
export const stripeEvent = (id: unknown, extra = '') =>
  `{"id":${JSON.stringify(id)},"object":"event","type":"invoice.paid"${extra}}`;
/** A GitHub push body. */
export const pushEvent = '{"ref":"refs/heads/main","after":"6113728f","repository":{"id":1296269}}';
/** A body whose `customer` (any JSON value) is the `signed` route's ordering key. */
export const order = (customer: unknown) => JSON.stringify({ type: 'order', customer });

/** Stored (or handed on): 200. */
export const ok: InboxExpected = { status: 200 };
/** A duplicate of a stored delivery. */
export const dup: InboxExpected = { status: 200, replayed: true };
/** The inbox's own refusal: `status` with `ERR_IDEMPOTENCY_<code>`. */
export const err = (status: number, code: string): InboxExpected => ({
  status,
  code: `ERR_IDEMPOTENCY_${code}`,
});
/** An answer of the framework or the next handler, not the inbox. */
export const by = (status: number, who: string): InboxExpected => ({ status, by: who });

/** Refused: one answer, nothing stored. */
export const refused = (answer: InboxExpected): InboxOutcome => ({ answers: [answer], rows: 0 });
/** Stored once from the first request; every further request answered as a duplicate. */
export const stored = (duplicates = 0, orderingKey: string | null = null): InboxOutcome => ({
  answers: [ok, ...Array<InboxExpected>(duplicates).fill(dup)],
  rows: 1,
  storedFrom: 0,
  orderingKey,
});
/** Handed on unstored: the next handler's (or the framework's) answer. */
export const passedOn = (status = 200, who = 'the next handler'): InboxOutcome =>
  refused(by(status, who));
/** A Stripe timestamp just past the preset's 300 s tolerance. */
export const STALE = NOW_SECONDS - 301;
/** A Stripe timestamp just ahead of the preset's 300 s tolerance. */
export const FUTURE = NOW_SECONDS + 301;
/** 5,000 nested arrays, as JSON text. */
export const NESTED = `[${'['.repeat(5000)}${']'.repeat(5000)}]`;

/**
 * Where the documented setup parses JSON before the inbox (Fastify's `rawBodyJsonParser`, Koa's
 * `rawBodyParser()`, Nest's body parser), bytes that are not JSON are that parser's 400, nothing
 * stored; Express's `express.raw()`, fetch and Hono hand the inbox the bytes unparsed.
 */
export const parsedJson: Partial<Record<InboxFamily, InboxOutcome>> = {
  fastify: refused(by(400, 'body parser')),
  koa: refused(by(400, 'body parser')),
  nestjs: refused(by(400, 'body parser')),
};
