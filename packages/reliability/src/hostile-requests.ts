/** @module The hostile-input table's vocabulary: routes, expected answers, secrets and the builders of its requests. */
import { createHmac } from 'node:crypto';
import type { RawRequest } from './hostile-client';

/**
 * The routes every adapter serves for the table, each on its own app:
 * `header` keys on the `X-Event-Id` header, `body` on the parsed body's `id`, `stripe` and
 * `github` and `shopify` use the presets, `down` has a store whose every call fails.
 */
export type Route = 'header' | 'body' | 'stripe' | 'github' | 'shopify' | 'down';

/**
 * Adapters grouped by framework: where answers differ, they differ by framework, never by major.
 * NestJS is one family per platform (`nest-express`, `nest-fastify`); where a case names none,
 * Nest answers as its platform's framework does.
 */
export type Family =
  | 'express'
  | 'fastify'
  | 'koa'
  | 'fetch'
  | 'hono'
  | 'nest-express'
  | 'nest-fastify';

/** One answer the table expects: status, and the guard's error code when the guard answered. */
export interface Expected {
  readonly status: number;
  /** The `code` of the guard's JSON error answer; `undefined` for the handler's or the framework's own answers. */
  readonly code?: string;
  /** `true`: a replay (`Idempotent-Replayed: true`). */
  readonly replayed?: boolean;
  /** Who answers when it is not the guard (shown in the table). */
  readonly by?: string;
}

/** What a whole case must produce: one answer per request, handler runs, and the receipt afterwards. */
export interface Outcome {
  readonly answers: readonly Expected[];
  /** Handler runs over all requests of the case. */
  readonly runs: number;
  /** The receipt of the case's key afterwards; `none` also means the store was never asked to claim. */
  readonly receipt: 'none' | 'completed' | 'failed';
}

/** One row of the table. */
export interface HostileCase {
  readonly name: string;
  /** What is sent, for the table. */
  readonly sent: string;
  readonly route: Route;
  /** Sent in order, each on a fresh connection. */
  readonly requests: readonly RawRequest[];
  /** The external id the receipt would have (checked with `find`); `undefined` when no valid key exists. */
  readonly key?: string;
  readonly expect: Outcome;
  /** Where a framework answers differently (its own body parser or media-type rules). */
  readonly on?: Partial<Record<Family, Outcome>>;
  /** The handler itself fails (throws, answers 500, or too much): a 500 is the documented answer. */
  readonly handlerFails?: boolean;
  /**
   * What the code answers today when it is not yet what the row expects (a known bug, reported to
   * the lead). The test still asserts the expected answer, so it fails until the bug is fixed; the
   * table says so, and the field goes once the row passes.
   */
  readonly today?: string;
}

/** The Stripe endpoint secret the table's Stripe route is built with. */
export const STRIPE_SECRET = 'whsec_hostile_5a1e0c9b7d3f';
/** The GitHub webhook secret the table's GitHub route is built with. */
export const GITHUB_SECRET = 'gh_hostile_2b8d4f6a';
/** The Shopify client secret the table's Shopify route is built with. */
export const SHOPIFY_SECRET = 'shpss_hostile_7c3e9a1f';
/** The Stripe route's clock, in seconds: signatures are made against it, so the table is deterministic. */
export const NOW_SECONDS = 1_767_225_600;
/** Header that tells the test handler how to answer: `throw`, `500`, `404`, `big` (5 MiB), else a small JSON 200. */
export const ANSWER_HEADER = 'x-answer';
/** Size of the `big` answer: over the default `maxResponseBytes` (4 MiB). */
export const BIG_ANSWER_BYTES = 5 * 1024 * 1024;

export const JSON_TYPE = 'application/json';

export function bytes(body: string | Buffer): Buffer {
  return typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
}

/** A request with `body`, `content-type: application/json` unless `contentType` says otherwise (`null`: none). */
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

/** A request on the `header` route: the id in `X-Event-Id`. */
export function withId(
  id: string | string[],
  body: string | Buffer = '{"event":"ping"}',
  headers: Record<string, string> = {},
  contentType: string | null = JSON_TYPE,
): RawRequest {
  return req(body, { 'x-event-id': id, ...headers }, contentType);
}

/** A signed Stripe request: `Stripe-Signature: t=…,v1=hex HMAC(secret, "t.body")`. */
export function stripeReq(
  body: string,
  options: { t?: number; secret?: string; signedBody?: string; contentType?: string | null } = {},
): RawRequest {
  const {
    t = NOW_SECONDS,
    secret = STRIPE_SECRET,
    signedBody = body,
    contentType = JSON_TYPE,
  } = options;
  const v1 = createHmac('sha256', secret).update(`${t}.${signedBody}`).digest('hex');
  return req(body, { 'stripe-signature': `t=${t},v1=${v1}` }, contentType);
}

/** A signed GitHub request: `X-Hub-Signature-256: sha256=hex HMAC(secret, body)` and a delivery id. */
export function githubReq(
  body: string,
  delivery: string | undefined,
  options: { secret?: string; signedBody?: string } = {},
): RawRequest {
  const { secret = GITHUB_SECRET, signedBody = body } = options;
  const signature = `sha256=${createHmac('sha256', secret).update(signedBody).digest('hex')}`;
  const headers: Record<string, string> = {
    'x-hub-signature-256': signature,
    'x-github-event': 'push',
  };
  if (delivery !== undefined) headers['x-github-delivery'] = delivery;
  return req(body, headers);
}

/** A signed Shopify request: `X-Shopify-Hmac-Sha256: base64 HMAC(secret, body)`, shop domain and webhook id. */
export function shopifyReq(
  body: string,
  webhookId: string,
  options: { secret?: string } = {},
): RawRequest {
  const { secret = SHOPIFY_SECRET } = options;
  return req(body, {
    'x-shopify-hmac-sha256': createHmac('sha256', secret).update(body).digest('base64'),
    'x-shopify-shop-domain': 'hostile.myshopify.com',
    'x-shopify-topic': 'orders/create',
    'x-shopify-webhook-id': webhookId,
  });
}

export const ok: Expected = { status: 200 };
export const replay: Expected = { status: 200, replayed: true };
export const guard = (status: number, code: string): Expected => ({
  status,
  code: `ERR_IDEMPOTENCY_${code}`,
});
export const framework = (status: number, by: string): Expected => ({ status, by });

/** Refused before the handler: one answer, no run, no receipt. */
export const refused = (answer: Expected): Outcome => ({
  answers: [answer],
  runs: 0,
  receipt: 'none',
});
/** Runs once and completes. */
export const completes: Outcome = { answers: [ok], runs: 1, receipt: 'completed' };
/** Runs once, then each further request is replayed. */
export const replays = (count: number): Outcome => ({
  answers: [ok, ...Array<Expected>(count).fill(replay)],
  runs: 1,
  receipt: 'completed',
});
/** Runs once, then each further request is refused with 422. */
export const mismatch = (count = 1): Outcome => ({
  answers: [ok, ...Array<Expected>(count).fill(guard(422, 'FINGERPRINT_MISMATCH'))],
  runs: 1,
  receipt: 'completed',
});

export const badJson = (status = 400): Outcome => refused(framework(status, 'body parser'));
/** fetch and Hono parse no body before the guard: what a body parser refuses reaches the handler there. */
export const unparsed: Partial<Record<Family, Outcome>> = { fetch: completes, hono: completes };
export const event = (id: unknown, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ id, type: 'ping', ...extra });
export const stripeEvent = (id: unknown) =>
  JSON.stringify({
    id,
    object: 'event',
    type: 'payment_intent.succeeded',
    data: { object: { amount: 2000 } },
  });
export const pushEvent =
  '{"ref":"refs/heads/main","after":"6113728f27ae82c7b1a177c8d03f9e96e0adf246","repository":{"id":1296269}}';

export const orderEvent =
  '{"id":820982911946154508,"email":"jon@example.com","total_price":"403.00","updated_at":"2026-01-01T00:00:00-05:00"}';
export const NESTED = `${'['.repeat(5000)}${']'.repeat(5000)}`;
export const LONG_ID = 'k'.repeat(100_000);
export const STALE = NOW_SECONDS - 301;
export const FUTURE = NOW_SECONDS + 301;
