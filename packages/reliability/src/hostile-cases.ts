/** @module The hostile-input table (docs/guarantees.md): malformed and forged requests, and what each adapter must answer. */
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
  /** The handler itself fails (throws, answers 500, or too much): a 500 is the documented answer (DESIGN.md §6). */
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

const JSON_TYPE = 'application/json';

function bytes(body: string | Buffer): Buffer {
  return typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
}

/** A request with `body`, `content-type: application/json` unless `contentType` says otherwise (`null`: none). */
function req(
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
function withId(
  id: string | string[],
  body: string | Buffer = '{"event":"ping"}',
  headers: Record<string, string> = {},
  contentType: string | null = JSON_TYPE,
): RawRequest {
  return req(body, { 'x-event-id': id, ...headers }, contentType);
}

/** A signed Stripe request: `Stripe-Signature: t=…,v1=hex HMAC(secret, "t.body")`. */
function stripeReq(
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
function githubReq(
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
function shopifyReq(
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

const ok: Expected = { status: 200 };
const replay: Expected = { status: 200, replayed: true };
const guard = (status: number, code: string): Expected => ({
  status,
  code: `ERR_IDEMPOTENCY_${code}`,
});
const framework = (status: number, by: string): Expected => ({ status, by });

/** Refused before the handler: one answer, no run, no receipt. */
const refused = (answer: Expected): Outcome => ({ answers: [answer], runs: 0, receipt: 'none' });
/** Runs once and completes. */
const completes: Outcome = { answers: [ok], runs: 1, receipt: 'completed' };
/** Runs once, then each further request is replayed. */
const replays = (count: number): Outcome => ({
  answers: [ok, ...Array<Expected>(count).fill(replay)],
  runs: 1,
  receipt: 'completed',
});
/** Runs once, then each further request is refused with 422. */
const mismatch = (count = 1): Outcome => ({
  answers: [ok, ...Array<Expected>(count).fill(guard(422, 'FINGERPRINT_MISMATCH'))],
  runs: 1,
  receipt: 'completed',
});

const badJson = (status = 400): Outcome => refused(framework(status, 'body parser'));
/** fetch and Hono parse no body before the guard: what a body parser refuses reaches the handler there. */
const unparsed: Partial<Record<Family, Outcome>> = { fetch: completes, hono: completes };
const event = (id: unknown, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ id, type: 'ping', ...extra });
const stripeEvent = (id: unknown) =>
  JSON.stringify({
    id,
    object: 'event',
    type: 'payment_intent.succeeded',
    data: { object: { amount: 2000 } },
  });
const pushEvent =
  '{"ref":"refs/heads/main","after":"6113728f27ae82c7b1a177c8d03f9e96e0adf246","repository":{"id":1296269}}';

const orderEvent =
  '{"id":820982911946154508,"email":"jon@example.com","total_price":"403.00","updated_at":"2026-01-01T00:00:00-05:00"}';
const NESTED = `${'['.repeat(5000)}${']'.repeat(5000)}`;
const LONG_ID = 'k'.repeat(100_000);
const STALE = NOW_SECONDS - 301;
const FUTURE = NOW_SECONDS + 301;

/** Every row of the table, in order. */
export const hostileCases: readonly HostileCase[] = [
  // --- the id in a header ---------------------------------------------------------------------
  {
    name: 'baseline',
    sent: 'valid JSON, `X-Event-Id: h-base`',
    route: 'header',
    requests: [withId('h-base')],
    key: 'h-base',
    expect: completes,
  },
  {
    name: 'plain duplicate',
    sent: 'the same request twice',
    route: 'header',
    requests: [withId('h-dup'), withId('h-dup')],
    key: 'h-dup',
    expect: replays(1),
  },
  {
    name: 'no id header',
    sent: 'valid JSON, no `X-Event-Id`',
    route: 'header',
    requests: [req('{"event":"ping"}')],
    expect: refused(guard(400, 'KEY_MISSING')),
  },
  {
    name: 'empty id header',
    sent: '`X-Event-Id:` (empty)',
    route: 'header',
    requests: [withId('')],
    expect: refused(guard(400, 'KEY_MISSING')),
  },
  {
    name: 'blank id header',
    sent: '`X-Event-Id:` three spaces (Node trims header whitespace: empty)',
    route: 'header',
    requests: [withId('   ')],
    expect: refused(guard(400, 'KEY_MISSING')),
  },
  {
    name: '161-character id',
    sent: '`X-Event-Id` of 161 characters',
    route: 'header',
    requests: [withId('h'.repeat(161))],
    expect: refused(guard(400, 'KEY_INVALID')),
  },
  {
    name: '160-character id',
    sent: '`X-Event-Id` of exactly 160 characters',
    route: 'header',
    requests: [withId('i'.repeat(160))],
    key: 'i'.repeat(160),
    expect: completes,
  },
  {
    name: '100 KB id header',
    sent: '`X-Event-Id` of 100,000 characters',
    route: 'header',
    requests: [withId('j'.repeat(100_000))],
    expect: refused(framework(431, "Node's HTTP parser")),
  },
  {
    name: 'id `__proto__`',
    sent: '`X-Event-Id: __proto__`, twice',
    route: 'header',
    requests: [withId('__proto__'), withId('__proto__')],
    key: '__proto__',
    expect: replays(1),
  },
  {
    name: 'id `constructor`',
    sent: '`X-Event-Id: constructor`, twice',
    route: 'header',
    requests: [withId('constructor'), withId('constructor')],
    key: 'constructor',
    expect: replays(1),
  },
  {
    name: 'id `hasOwnProperty`',
    sent: '`X-Event-Id: hasOwnProperty`',
    route: 'header',
    requests: [withId('hasOwnProperty')],
    key: 'hasOwnProperty',
    expect: completes,
  },
  {
    name: 'id `toString`',
    sent: '`X-Event-Id: toString`',
    route: 'header',
    requests: [withId('toString')],
    key: 'toString',
    expect: completes,
  },
  {
    name: 'id header sent twice',
    sent: '`X-Event-Id: h-a` and `X-Event-Id: h-b` (Node joins them: `h-a, h-b`)',
    route: 'header',
    requests: [withId(['h-a', 'h-b'])],
    key: 'h-a, h-b',
    expect: completes,
  },
  {
    name: 'Latin-1 byte in the id',
    sent: '`X-Event-Id` with the byte 0xE9 (read as `é`)',
    route: 'header',
    requests: [withId('h-caf\u00e9')],
    key: 'h-caf\u00e9',
    expect: completes,
  },
  {
    name: 'truncated JSON',
    sent: '`{"event":` with an id',
    route: 'header',
    requests: [withId('h-trunc', '{"event":')],
    key: 'h-trunc',
    expect: badJson(),
    on: unparsed,
  },
  {
    name: 'JSON with trailing garbage',
    sent: '`{"event":"ping"} x`',
    route: 'header',
    requests: [withId('h-garbage', '{"event":"ping"} x')],
    key: 'h-garbage',
    expect: badJson(),
    on: unparsed,
  },
  {
    name: 'single-quoted JSON',
    sent: "`{'event':'ping'}`",
    route: 'header',
    requests: [withId('h-quotes', "{'event':'ping'}")],
    key: 'h-quotes',
    expect: badJson(),
    on: unparsed,
  },
  {
    name: 'invalid UTF-8 in a JSON string',
    sent: 'JSON whose string holds the bytes 0xC3 0x28',
    route: 'header',
    requests: [
      withId(
        'h-utf8',
        Buffer.concat([Buffer.from('{"event":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]),
      ),
    ],
    key: 'h-utf8',
    expect: completes,
  },
  {
    name: 'deeply nested JSON',
    sent: '5,000 nested arrays',
    route: 'header',
    requests: [withId('h-deep', NESTED)],
    key: 'h-deep',
    expect: completes,
  },
  {
    name: 'JSON `null` body',
    sent: 'the body `null`',
    route: 'header',
    requests: [withId('h-null', 'null')],
    key: 'h-null',
    expect: badJson(),
    on: { fastify: completes, ...unparsed },
  },
  {
    name: 'empty JSON body',
    sent: 'no bytes, `content-type: application/json`',
    route: 'header',
    requests: [withId('h-empty', '')],
    key: 'h-empty',
    expect: completes,
    on: { 'nest-fastify': badJson() },
  },
  {
    name: 'text/plain content-type',
    sent: 'JSON sent as `text/plain`',
    route: 'header',
    requests: [withId('h-text', '{"event":"ping"}', {}, 'text/plain')],
    key: 'h-text',
    expect: completes,
  },
  {
    name: 'no content-type',
    sent: 'a JSON body without `content-type`',
    route: 'header',
    requests: [withId('h-notype', '{"event":"ping"}', {}, null)],
    key: 'h-notype',
    expect: completes,
    on: { fastify: refused(framework(415, 'Fastify (no parser)')) },
  },
  {
    name: 'form content-type',
    sent: '`a=1&b=2` as `application/x-www-form-urlencoded`',
    route: 'header',
    requests: [withId('h-form', 'a=1&b=2', {}, 'application/x-www-form-urlencoded')],
    key: 'h-form',
    expect: completes,
    on: { fastify: refused(framework(415, 'Fastify (no parser)')), 'nest-fastify': completes },
  },
  {
    name: 'unsupported charset',
    sent: 'JSON as `application/json; charset=latin1`',
    route: 'header',
    requests: [withId('h-charset', '{"event":"ping"}', {}, 'application/json; charset=latin1')],
    key: 'h-charset',
    expect: refused(framework(415, 'body parser')),
    on: { fastify: completes, koa: completes, ...unparsed },
  },
  {
    name: '2 MB body',
    sent: 'a 2 MB JSON body',
    route: 'header',
    requests: [withId('h-huge', `{"pad":"${'p'.repeat(2 * 1024 * 1024)}"}`)],
    key: 'h-huge',
    expect: refused(framework(413, 'body parser')),
    on: {
      fetch: refused(framework(413, '`maxRequestBytes`')),
      hono: refused(framework(413, 'the 1 MiB request limit')),
    },
  },
  {
    name: '`__proto__` in the body',
    sent: '`{"__proto__":{"polluted":true}}`',
    route: 'header',
    requests: [withId('h-proto', '{"__proto__":{"polluted":true}}')],
    key: 'h-proto',
    expect: completes,
    on: { koa: badJson(), 'nest-fastify': badJson() },
  },
  {
    name: '`constructor.prototype` in the body',
    sent: '`{"constructor":{"prototype":{"polluted":true}}}`',
    route: 'header',
    requests: [withId('h-ctor', '{"constructor":{"prototype":{"polluted":true}}}')],
    key: 'h-ctor',
    expect: completes,
    on: { 'nest-fastify': badJson() },
  },
  {
    name: 'tampered body, same id',
    sent: '`{"amount":1}` then `{"amount":1000}` under one id',
    route: 'header',
    requests: [withId('h-tamper', '{"amount":1}'), withId('h-tamper', '{"amount":1000}')],
    key: 'h-tamper',
    expect: mismatch(),
  },
  {
    name: 're-serialised body, same id',
    sent: '`{"a":1,"b":2}` then `{ "b": 2, "a": 1 }` under one id',
    route: 'header',
    requests: [withId('h-reser', '{"a":1,"b":2}'), withId('h-reser', '{ "b": 2, "a": 1 }')],
    key: 'h-reser',
    expect: mismatch(),
  },
  {
    name: 'id only, no body',
    sent: 'a delivery, then its id with an empty body (DESIGN.md §10)',
    route: 'header',
    requests: [withId('h-idonly', '{"secret":"s3"}'), withId('h-idonly', '')],
    key: 'h-idonly',
    expect: mismatch(),
    on: {
      'nest-fastify': {
        answers: [ok, framework(400, 'body parser')],
        runs: 1,
        receipt: 'completed',
      },
    },
  },
  {
    name: 'handler throws',
    sent: 'a delivery whose handler throws',
    route: 'header',
    requests: [withId('h-throw', '{}', { [ANSWER_HEADER]: 'throw' })],
    key: 'h-throw',
    handlerFails: true,
    expect: { answers: [framework(500, 'the framework')], runs: 1, receipt: 'failed' },
  },
  {
    name: 'handler throws, redelivered',
    sent: 'the same, twice',
    route: 'header',
    requests: [
      withId('h-throw2', '{}', { [ANSWER_HEADER]: 'throw' }),
      withId('h-throw2', '{}', { [ANSWER_HEADER]: 'throw' }),
    ],
    key: 'h-throw2',
    handlerFails: true,
    expect: {
      answers: [framework(500, 'the framework'), framework(500, 'the framework')],
      runs: 2,
      receipt: 'failed',
    },
  },
  {
    name: 'handler answers 500',
    sent: 'a delivery whose handler answers 500',
    route: 'header',
    requests: [withId('h-500', '{}', { [ANSWER_HEADER]: '500' })],
    key: 'h-500',
    handlerFails: true,
    expect: { answers: [framework(500, 'the handler')], runs: 1, receipt: 'failed' },
  },
  {
    name: 'handler answers 404',
    sent: 'a delivery whose handler answers 404',
    route: 'header',
    requests: [withId('h-404', '{}', { [ANSWER_HEADER]: '404' })],
    key: 'h-404',
    expect: { answers: [framework(404, 'the handler')], runs: 1, receipt: 'failed' },
  },
  {
    name: 'handler answers 5 MB',
    sent: 'a 200 with 5 MiB (over `maxResponseBytes`), then a redelivery',
    route: 'header',
    requests: [
      withId('h-big', '{}', { [ANSWER_HEADER]: 'big' }),
      withId('h-big', '{}', { [ANSWER_HEADER]: 'big' }),
    ],
    key: 'h-big',
    handlerFails: true,
    expect: {
      answers: [
        framework(500, 'the framework: RESPONSE_TOO_LARGE'),
        framework(500, 'the framework: RESPONSE_TOO_LARGE'),
      ],
      runs: 2,
      receipt: 'failed',
    },
  },

  // --- the id in the body -----------------------------------------------------------------------
  {
    name: 'string id',
    sent: '`{"id":"b-1"}`, twice',
    route: 'body',
    requests: [req(event('b-1')), req(event('b-1'))],
    key: 'b-1',
    expect: replays(1),
  },
  {
    name: 'number then numeric string',
    sent: '`{"id":8}` then `{"id":"8"}`: one key `8`, other bytes',
    route: 'body',
    requests: [req(event(8)), req(event('8'))],
    key: '8',
    expect: mismatch(),
  },
  {
    name: '`0` then `-0`',
    sent: '`{"id":0}` then `{"id":-0}`: one key `0` (RequestKey), other bytes',
    route: 'body',
    requests: [req('{"id":0}'), req('{"id":-0}')],
    key: '0',
    expect: mismatch(),
  },
  {
    name: 'exponent spelling',
    sent: '`{"id":10}` then `{"id":1e1}`',
    route: 'body',
    requests: [req('{"id":10}'), req('{"id":1e1}')],
    key: '10',
    expect: mismatch(),
  },
  {
    name: 'object id',
    sent: '`{"id":{"nested":"b-2"}}`',
    route: 'body',
    requests: [req(event({ nested: 'b-2' }))],
    expect: refused(guard(400, 'KEY_INVALID')),
  },
  {
    name: 'array id',
    sent: '`{"id":["b-3"]}`',
    route: 'body',
    requests: [req(event(['b-3']))],
    expect: refused(guard(400, 'KEY_INVALID')),
  },
  {
    name: 'boolean id',
    sent: '`{"id":true}`',
    route: 'body',
    requests: [req(event(true))],
    expect: refused(guard(400, 'KEY_INVALID')),
  },
  {
    name: 'fractional id',
    sent: '`{"id":1.5}`',
    route: 'body',
    requests: [req(event(1.5))],
    expect: refused(guard(400, 'KEY_INVALID')),
  },
  {
    name: 'unsafe integer id',
    sent: '`{"id":9007199254740993}`',
    route: 'body',
    requests: [req('{"id":9007199254740993}')],
    expect: refused(guard(400, 'KEY_INVALID')),
  },
  {
    name: 'null id',
    sent: '`{"id":null}`',
    route: 'body',
    requests: [req(event(null))],
    expect: refused(guard(400, 'KEY_MISSING')),
  },
  {
    name: 'empty id',
    sent: '`{"id":""}`',
    route: 'body',
    requests: [req(event(''))],
    expect: refused(guard(400, 'KEY_MISSING')),
  },
  {
    name: 'no id',
    sent: '`{"type":"ping"}`',
    route: 'body',
    requests: [req('{"type":"ping"}')],
    expect: refused(guard(400, 'KEY_MISSING')),
  },
  {
    name: 'NUL in the id',
    sent: '`{"id":"b\\u0000x"}`',
    route: 'body',
    requests: [req('{"id":"b\\u0000x"}')],
    expect: refused(guard(400, 'KEY_INVALID')),
  },
  {
    name: 'lone surrogate id',
    sent: '`{"id":"\\ud800"}`',
    route: 'body',
    requests: [req('{"id":"\\ud800"}')],
    expect: refused(guard(400, 'KEY_INVALID')),
  },
  {
    name: '100 KB id',
    sent: 'an id of 100,000 characters in the body',
    route: 'body',
    requests: [req(event(LONG_ID))],
    expect: refused(guard(400, 'KEY_INVALID')),
  },
  {
    name: '160 emoji id',
    sent: '160 four-byte characters (640 bytes)',
    route: 'body',
    requests: [req(event('😀'.repeat(160)))],
    key: '😀'.repeat(160),
    expect: completes,
  },
  {
    name: 'id `__proto__` in the body',
    sent: '`{"id":"__proto__"}`, twice',
    route: 'body',
    requests: [req(event('__proto__')), req(event('__proto__'))],
    key: '__proto__',
    expect: replays(1),
  },
  {
    name: 'id hidden under `__proto__`',
    sent: '`{"__proto__":{"id":"b-4"}}`',
    route: 'body',
    requests: [req('{"__proto__":{"id":"b-4"}}')],
    key: 'b-4',
    expect: refused(guard(400, 'KEY_MISSING')),
    on: { koa: badJson(), 'nest-fastify': badJson() },
  },
  {
    name: 'array body',
    sent: '`[{"id":"b-5"}]`',
    route: 'body',
    requests: [req('[{"id":"b-5"}]')],
    key: 'b-5',
    expect: refused(guard(400, 'KEY_MISSING')),
  },

  // --- Stripe preset ----------------------------------------------------------------------------
  {
    name: 'Stripe: signed',
    sent: 'a correctly signed event, twice',
    route: 'stripe',
    requests: [stripeReq(stripeEvent('evt_ok')), stripeReq(stripeEvent('evt_ok'))],
    key: 'evt_ok',
    expect: replays(1),
  },
  {
    name: 'Stripe: forged',
    sent: 'signed with another secret',
    route: 'stripe',
    requests: [stripeReq(stripeEvent('evt_forged'), { secret: 'whsec_attacker' })],
    key: 'evt_forged',
    expect: refused(guard(401, 'SIGNATURE_INVALID')),
  },
  {
    name: 'Stripe: stale',
    sent: 'a valid signature 301 s old',
    route: 'stripe',
    requests: [stripeReq(stripeEvent('evt_stale'), { t: STALE })],
    key: 'evt_stale',
    expect: refused(guard(401, 'SIGNATURE_INVALID')),
  },
  {
    name: 'Stripe: from the future',
    sent: 'a valid signature 301 s ahead',
    route: 'stripe',
    requests: [stripeReq(stripeEvent('evt_future'), { t: FUTURE })],
    key: 'evt_future',
    expect: refused(guard(401, 'SIGNATURE_INVALID')),
  },
  {
    name: 'Stripe: tampered body',
    sent: "another event's body under a valid signature",
    route: 'stripe',
    requests: [stripeReq(stripeEvent('evt_tampered'), { signedBody: stripeEvent('evt_original') })],
    key: 'evt_tampered',
    expect: refused(guard(401, 'SIGNATURE_INVALID')),
  },
  {
    name: 'Stripe: re-serialised body',
    sent: 'the signed JSON re-serialised (other spacing)',
    route: 'stripe',
    requests: [
      stripeReq(JSON.stringify(JSON.parse(stripeEvent('evt_reser')), null, 1), {
        signedBody: stripeEvent('evt_reser'),
      }),
    ],
    key: 'evt_reser',
    expect: refused(guard(401, 'SIGNATURE_INVALID')),
  },
  {
    name: 'Stripe: unsigned',
    sent: 'no `Stripe-Signature`',
    route: 'stripe',
    requests: [req(stripeEvent('evt_unsigned'))],
    key: 'evt_unsigned',
    expect: refused(guard(401, 'SIGNATURE_INVALID')),
  },
  {
    name: 'Stripe: garbled signature',
    sent: '`Stripe-Signature: =,=,,;`',
    route: 'stripe',
    requests: [req(stripeEvent('evt_garbled'), { 'stripe-signature': '=,=,,;' })],
    key: 'evt_garbled',
    expect: refused(guard(401, 'SIGNATURE_INVALID')),
  },
  {
    name: 'Stripe: unsigned copy of a completed event',
    sent: 'a signed event, then the same bytes without a signature',
    route: 'stripe',
    requests: [stripeReq(stripeEvent('evt_copy')), req(stripeEvent('evt_copy'))],
    key: 'evt_copy',
    expect: { answers: [ok, guard(401, 'SIGNATURE_INVALID')], runs: 1, receipt: 'completed' },
  },
  {
    name: 'Stripe: object id',
    sent: 'signed, `"id":{"nested":"evt"}`',
    route: 'stripe',
    requests: [stripeReq(stripeEvent({ nested: 'evt' }))],
    expect: refused(guard(400, 'KEY_INVALID')),
  },
  {
    name: 'Stripe: no id',
    sent: 'signed, no `id`',
    route: 'stripe',
    requests: [stripeReq('{"object":"event"}')],
    expect: refused(guard(400, 'KEY_MISSING')),
  },
  {
    name: 'Stripe: lone surrogate id',
    sent: 'signed, `"id":"\\ud800"`',
    route: 'stripe',
    requests: [stripeReq('{"id":"\\ud800","object":"event"}')],
    expect: refused(guard(400, 'KEY_INVALID')),
  },
  {
    name: 'Stripe: bad JSON, signed',
    sent: 'signed bytes that are not JSON',
    route: 'stripe',
    requests: [stripeReq('{"id":"evt_bad",')],
    key: 'evt_bad',
    expect: badJson(),
  },
  {
    name: 'Stripe: signed, as text/plain',
    sent: 'a correctly signed event sent as `text/plain`',
    route: 'stripe',
    requests: [stripeReq(stripeEvent('evt_text'), { contentType: 'text/plain' })],
    key: 'evt_text',
    expect: refused(guard(401, 'SIGNATURE_INVALID')),
    // No body parser decides what a content type means there: the bytes are the signed ones.
    on: { fetch: completes, hono: completes },
  },

  // --- GitHub preset ----------------------------------------------------------------------------
  {
    name: 'GitHub: signed',
    sent: 'a correctly signed push',
    route: 'github',
    requests: [githubReq(pushEvent, 'gh-ok')],
    key: 'gh-ok',
    expect: completes,
  },
  {
    name: 'GitHub: forged',
    sent: 'signed with another secret',
    route: 'github',
    requests: [githubReq(pushEvent, 'gh-forged', { secret: 'attacker' })],
    key: 'gh-forged',
    expect: refused(guard(401, 'SIGNATURE_INVALID')),
  },
  {
    name: 'GitHub: tampered body',
    sent: "another body under a push's signature",
    route: 'github',
    requests: [
      githubReq(pushEvent.replace('main', 'evil'), 'gh-tampered', { signedBody: pushEvent }),
    ],
    key: 'gh-tampered',
    expect: refused(guard(401, 'SIGNATURE_INVALID')),
  },
  {
    name: 'GitHub: SHA-1 only',
    sent: 'only the legacy `X-Hub-Signature: sha1=…`',
    route: 'github',
    requests: [
      req(pushEvent, {
        'x-hub-signature': `sha1=${createHmac('sha1', GITHUB_SECRET).update(pushEvent).digest('hex')}`,
        'x-github-delivery': 'gh-sha1',
      }),
    ],
    key: 'gh-sha1',
    expect: refused(guard(401, 'SIGNATURE_INVALID')),
  },
  {
    name: 'GitHub: signed, no delivery id',
    sent: 'a signed push without `X-GitHub-Delivery`',
    route: 'github',
    requests: [githubReq(pushEvent, undefined)],
    expect: refused(guard(400, 'KEY_MISSING')),
  },
  {
    name: 'GitHub: captured request, fresh delivery id',
    sent: 'a signed push re-sent with a new `X-GitHub-Delivery` (not signed: docs/providers.md)',
    route: 'github',
    requests: [githubReq(pushEvent, 'gh-captured-1'), githubReq(pushEvent, 'gh-captured-2')],
    key: 'gh-captured-2',
    expect: { answers: [ok, ok], runs: 2, receipt: 'completed' },
  },

  // --- Shopify preset ---------------------------------------------------------------------------
  {
    name: 'Shopify: signed',
    sent: 'a correctly signed `orders/create`, twice',
    route: 'shopify',
    requests: [shopifyReq(orderEvent, 'wh-ok'), shopifyReq(orderEvent, 'wh-ok')],
    key: 'hostile.myshopify.com:wh-ok',
    expect: replays(1),
  },
  {
    name: 'Shopify: forged',
    sent: 'signed with another secret',
    route: 'shopify',
    requests: [shopifyReq(orderEvent, 'wh-forged', { secret: 'attacker' })],
    key: 'hostile.myshopify.com:wh-forged',
    expect: refused(guard(401, 'SIGNATURE_INVALID')),
  },
  {
    name: 'Shopify: captured request, fresh webhook id',
    sent: 'a signed order re-sent with a new `X-Shopify-Webhook-Id` (not signed: docs/providers.md)',
    route: 'shopify',
    requests: [shopifyReq(orderEvent, 'wh-captured-1'), shopifyReq(orderEvent, 'wh-captured-2')],
    key: 'hostile.myshopify.com:wh-captured-2',
    expect: { answers: [ok, ok], runs: 2, receipt: 'completed' },
  },

  // --- the store is down ------------------------------------------------------------------------
  {
    name: 'store unreachable',
    sent: 'a valid delivery while every store call fails',
    route: 'down',
    requests: [withId('d-1')],
    key: 'd-1',
    expect: refused(guard(503, 'STORE')),
  },
];
