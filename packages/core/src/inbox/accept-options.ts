/**
 * @module The inbox endpoint's options: {@link InboxOptions}, checked once into what
 * {@link createInboxEngine} answers requests with.
 */
import { ConfigError } from '../errors';
import { DEFAULT_REPLAYED_HEADER, HTTP_TOKEN, RequestPolicy } from '../http/constants';
import { keyConfig, verifyConfig, type IdempotencyOptions } from '../http/options';
import type { ProviderPreset } from '../http/types';
import type { ExternalId } from '../request-key';
import { routingOf } from '../routing/routes';
import { type InboxResponse, resolveHeaders, resolveResponse } from './accept-answers';
import { type InboxBackpressureOptions, resolveBackpressure } from './backpressure';
import type { InboxStore } from './inbox-store';
import type { InboxEvent } from './types';

/**
 * Options of every adapter's `inbox(options)`. `undefined` means "the default"; an invalid value
 * throws a `ConfigError` naming the option, at construction.
 * @typeParam Native the framework's request: Express `req`, Fastify `request`, Koa `ctx`.
 */
export interface InboxOptions<Native = unknown> {
  /** Where deliveries are stored (`new SqlInbox(db)`). Required. */
  inbox: InboxStore;
  /** Provider knowledge: the key and the signature check. Excludes `provider` and `key`. */
  preset?: ProviderPreset;
  /** The deliveries' provider: a name or a function of the request. Required without `preset`. */
  provider?: string | ((native: Native) => string);
  /** The provider's id for the delivery; `undefined`, `null` or `''` when it has none. Required without `preset`. */
  key?: (native: Native) => ExternalId | null | undefined;
  /** How the 400 answer names the missing key. Defaults to the preset's, else `'delivery id'`. */
  keyDescription?: string;
  /** Your own authenticity check on the raw bytes, after the preset's; `false` answers 401 and stores nothing. */
  verify?: (native: Native, rawBody: Buffer | undefined) => boolean | Promise<boolean>;
  /**
   * `true` stores every request that carries a key, authenticated or not: anyone who can reach
   * the endpoint can then store a delivery under any id first, and the genuine delivery with that
   * id is answered as a duplicate and never stored. Without a preset or `verify` the inbox refuses
   * to start unless this is `true` (an unauthenticated endpoint is a choice, never
   * a default). Refused together with a preset or `verify`. Defaults to `false`.
   */
  unverified?: boolean;
  /** A request without a key: `'reject'` answers 400, `'passthrough'` hands it to the next handler unstored. Defaults to `'reject'`. */
  onMissingKey?: RequestPolicy;
  /**
   * Deliveries of one provider with the same ordering key (a customer, a subscription) are
   * processed one at a time, in the order they were stored. Return `null`/`undefined` for none.
   * Defaults to none.
   */
  orderingKey?: (native: Native, rawBody: Buffer) => string | null | undefined;
  /**
   * The request headers to store with the body (lower-case names), replacing
   * `DEFAULT_INBOX_HEADERS` (exported by `@webhook-idempotency/core/adapter`). `authorization`, `proxy-authorization` and cookies are refused.
   */
  headers?: readonly string[];
  /** What to answer once the delivery is stored. Defaults to 200 `{"received":true}`. */
  response?: InboxResponse;
  /** Header set to `true` on the answer to a delivery already stored. Defaults to `'Idempotent-Replayed'`. */
  replayedHeader?: string;
  /**
   * Refuse a provider's new deliveries, unstored, with 503 (or 429) and `Retry-After` while its
   * backlog of unfinished deliveries is over a depth or age budget; duplicates are still answered
   * 2xx. Off by default (docs/inbox.md#backpressure).
   */
  backpressure?: InboxBackpressureOptions;
  /** Receives `stored`, `duplicate`, `store-error`, `answered` and `backpressure` events. Errors it throws are ignored. */
  onEvent?: (event: InboxEvent) => void;
}

const KNOWN = new Set([
  'inbox',
  'preset',
  'provider',
  'key',
  'keyDescription',
  'verify',
  'unverified',
  'onMissingKey',
  'orderingKey',
  'headers',
  'response',
  'replayedHeader',
  'backpressure',
  'onEvent',
]);

/**
 * An inbox stores whatever it accepts and answers every later delivery of that id as a
 * duplicate, so an endpoint without a check would let a forged first request pin the id: it must
 * verify, or say in its options that it does not.
 */
function checkAuthenticated(unverified: unknown, verifies: boolean): void {
  if (unverified !== undefined && typeof unverified !== 'boolean')
    throw new ConfigError('unverified', 'must be a boolean');
  if (unverified === true && verifies)
    throw new ConfigError(
      'unverified',
      'cannot be combined with a preset or `verify` that checks the request',
    );
  if (unverified !== true && !verifies)
    throw new ConfigError(
      'verify',
      'is required without a preset that verifies: an inbox without a check stores forged deliveries and then drops the genuine ones as duplicates; pass `verify`, a preset, or `unverified: true` to accept unauthenticated requests on purpose',
    );
}

/** The inbox endpoint's options, checked and resolved. */
export interface InboxConfig<Native> {
  readonly inbox: InboxStore;
  readonly preset: ProviderPreset | undefined;
  readonly orderingKey: InboxOptions<Native>['orderingKey'];
  readonly onEvent: InboxOptions<Native>['onEvent'];
  readonly onMissingKey: RequestPolicy;
  readonly keys: ReturnType<typeof keyConfig<Native>>;
  readonly verify: ReturnType<typeof verifyConfig<Native>>;
  readonly headerNames: ReturnType<typeof resolveHeaders>;
  readonly answers: ReturnType<typeof resolveResponse>;
  readonly routing: ReturnType<typeof routingOf>;
  readonly budget: ReturnType<typeof resolveBackpressure>;
}

/**
 * The options, checked.
 * @throws {ConfigError} naming the first invalid option.
 */
export function resolveInboxOptions<Native>(options: InboxOptions<Native>): InboxConfig<Native> {
  if (typeof options !== 'object' || options === null)
    throw new ConfigError('options', 'must be an object with `inbox`');
  const unknown = Object.keys(options).find((name) => !KNOWN.has(name));
  if (unknown !== undefined) throw new ConfigError(unknown, 'is not an option of the inbox');
  const { inbox, preset, orderingKey, onEvent, replayedHeader = DEFAULT_REPLAYED_HEADER } = options;
  if (!inbox || typeof inbox.enqueue !== 'function')
    throw new ConfigError('inbox', 'must implement InboxStore (new SqlInbox(db))');
  if (orderingKey !== undefined && typeof orderingKey !== 'function')
    throw new ConfigError('orderingKey', 'must be a function');
  if (onEvent !== undefined && typeof onEvent !== 'function')
    throw new ConfigError('onEvent', 'must be a function');
  if (typeof replayedHeader !== 'string' || !HTTP_TOKEN.test(replayedHeader))
    throw new ConfigError('replayedHeader', 'must be a valid header name');
  const onMissingKey = options.onMissingKey ?? RequestPolicy.REJECT;
  if (onMissingKey !== RequestPolicy.REJECT && onMissingKey !== RequestPolicy.PASSTHROUGH)
    throw new ConfigError('onMissingKey', `must be 'reject' or 'passthrough'`);
  const asGuardOptions = options as unknown as IdempotencyOptions<Native, unknown>;
  const keys = keyConfig(asGuardOptions);
  const verify = verifyConfig(asGuardOptions);
  checkAuthenticated(options.unverified, verify !== undefined);
  return {
    inbox,
    preset,
    orderingKey,
    onEvent,
    onMissingKey,
    keys,
    verify,
    headerNames: resolveHeaders(options.headers),
    answers: resolveResponse(options.response, replayedHeader),
    routing: routingOf(preset),
    budget: resolveBackpressure(options.backpressure, preset),
  };
}
