/**
 * @module The inbox endpoint, framework-free: verify, extract the key, store the
 * verified bytes, answer 2xx at once. Adapters translate a request in and the answer out.
 */
import { ConfigError, ErrorCode, IdempotencyError, InvalidRequestKey, StoreError } from '../errors';
import { answerFor } from '../http/answers';
import { DEFAULT_REPLAYED_HEADER, RequestPolicy, UNGUARDED_METHODS } from '../http/constants';
import { keyConfig, verifyConfig, type IdempotencyOptions } from '../http/options';
import type { HttpRequest, HttpResponseRecord, ProviderPreset } from '../http/types';
import { checkKeyPart, RequestKey, type ExternalId } from '../request-key';
import { routingOf } from '../routing/routes';
import {
  DEFAULT_INBOX_HEADERS,
  type InboxResponse,
  resolveHeaders,
  resolveResponse,
} from './accept-answers';
import {
  BackpressureGate,
  type InboxBackpressureOptions,
  resolveBackpressure,
} from './backpressure';
import type { AnsweredEvent } from './figures';
import type { InboxStore } from './inbox-store';
import type { InboxEvent } from './types';

export { DEFAULT_INBOX_HEADERS, type InboxBackpressureOptions, type InboxResponse };

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
   * {@link DEFAULT_INBOX_HEADERS}. `authorization`, `proxy-authorization` and cookies are refused.
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

/** What {@link InboxEngine.accept} decided. */
export type InboxDecision =
  /** Send this answer: 2xx once stored (`stored: false` for a duplicate), or the 400/401/429/503 refusal. */
  | { readonly action: 'respond'; readonly response: HttpResponseRecord; readonly stored: boolean }
  /** Hand the request on unstored: a read method, a preset pass-through, or `onMissingKey: 'passthrough'`. */
  | { readonly action: 'pass' };

/** The inbox endpoint's policy, built once per route. */
export interface InboxEngine<Native = unknown> {
  /**
   * Verifies, keys and stores one request. Rejects only with errors for the framework's own
   * handling: `ERR_IDEMPOTENCY_RAW_BODY_MISSING` or an error thrown by a user callback.
   */
  accept(request: HttpRequest<Native>): Promise<InboxDecision>;
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

/** True unless a parser turned the body into data without keeping its bytes. */
function nothingParsed(body: unknown): boolean {
  if (body === undefined || body === null || typeof body !== 'object' || Buffer.isBuffer(body))
    return true;
  return Object.keys(body).length === 0;
}

/** The request says it carries a body (a non-zero length, or chunked). */
function announcesBody(request: HttpRequest): boolean {
  const length = request.headers['content-length'];
  return (
    (length !== undefined && length !== '0') || request.headers['transfer-encoding'] !== undefined
  );
}

function rawBodyMissing(): IdempotencyError {
  return new IdempotencyError(
    ErrorCode.RAW_BODY_MISSING,
    'The inbox stores the exact request bytes and the adapter got none: mount a raw-body parser before it (docs/guides/raw-body.md)',
  );
}

/** The ordering key a callback returned, checked as a key part (it is stored in a key column). */
function validOrderingKey(value: unknown): string | null {
  if (value === undefined || value === null || value === '') return null;
  if (typeof value !== 'string')
    throw new InvalidRequestKey(
      'orderingKey',
      `must be a string, got ${Array.isArray(value) ? 'an array' : typeof value}`,
    );
  return checkKeyPart('orderingKey', value);
}

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

/**
 * Builds the inbox endpoint an adapter calls for every request. Options are checked here, once.
 * @throws {ConfigError} naming the first invalid option.
 * @example
 * const engine = createInboxEngine({ inbox, preset: providers.stripe({ secret }) });
 * const decision = await engine.accept({ method, url, headers, rawBody, body, native: req });
 * @see docs/inbox.md
 */
export function createInboxEngine<Native = unknown>(
  options: InboxOptions<Native>,
): InboxEngine<Native> {
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
  if (typeof replayedHeader !== 'string' || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(replayedHeader))
    throw new ConfigError('replayedHeader', 'must be a valid header name');
  const onMissingKey = options.onMissingKey ?? RequestPolicy.REJECT;
  if (onMissingKey !== RequestPolicy.REJECT && onMissingKey !== RequestPolicy.PASSTHROUGH)
    throw new ConfigError('onMissingKey', `must be 'reject' or 'passthrough'`);
  // A batch stored as one delivery would be processed whole by the worker: a re-batched retry
  // would run its items again. Batched presets go through the guard's adapters (batch.each).
  if (typeof preset?.items === 'function')
    throw new ConfigError(
      'preset',
      `the ${preset.provider} preset batches several events in one request, which the inbox does not split into items yet: use the adapter's idempotent() with idempotency.batch.each (docs/providers.md#batched-deliveries)`,
    );
  const asGuardOptions = options as unknown as IdempotencyOptions<Native, unknown>;
  const keys = keyConfig(asGuardOptions);
  const verify = verifyConfig(asGuardOptions);
  checkAuthenticated(options.unverified, verify !== undefined);
  const headerNames = resolveHeaders(options.headers);
  const answers = resolveResponse(options.response, replayedHeader);
  const refusals = { preset, inProgressStatus: 409 as const };
  const routing = routingOf(preset);
  const emit = (event: InboxEvent) => {
    try {
      onEvent?.(event);
    } catch {
      // An observer never changes an answer.
    }
  };
  const budget = resolveBackpressure(options.backpressure, preset);
  const gate = budget && new BackpressureGate(inbox, budget, emit);
  const refuse = (error: unknown, request: HttpRequest<Native>): InboxDecision => {
    const response = answerFor(error, refusals, request);
    if (!response) throw error;
    return { action: 'respond', response, stored: false };
  };
  const pickHeaders = (request: HttpRequest): Record<string, string> => {
    const picked: Record<string, string> = {};
    for (const name of headerNames) {
      const value = request.headers[name];
      if (typeof value === 'string') picked[name] = value;
      else if (Array.isArray(value)) picked[name] = value.join(', ');
    }
    return picked;
  };

  // Clocks are read only when someone listens, as the guard does.
  const clock = onEvent ? () => performance.now() : () => 0;
  const answered = (
    key: RequestKey,
    started: number,
    outcome: AnsweredEvent['outcome'],
    decision: InboxDecision,
  ): InboxDecision => {
    if (onEvent && decision.action === 'respond')
      emit({
        type: 'answered',
        provider: key.provider,
        externalId: key.externalId,
        outcome,
        status: decision.response.status,
        durationMs: clock() - started,
      });
    return decision;
  };

  return {
    async accept(request) {
      const started = clock();
      if (UNGUARDED_METHODS.has(request.method)) {
        // A read the preset answers as its provider's challenge (Braintree's bt_challenge).
        const read = request.method === 'GET' || request.method === 'HEAD';
        const challenge = read ? preset?.challenge?.(request) : undefined;
        return challenge
          ? { action: 'respond', response: challenge, stored: false }
          : { action: 'pass' };
      }
      if (request.rawBody === undefined && !nothingParsed(request.body)) throw rawBodyMissing();
      if (verify && !(await verify(request))) {
        const error = new IdempotencyError(
          ErrorCode.SIGNATURE_INVALID,
          'The request failed verification; nothing was stored',
        );
        return refuse(error, request);
      }
      // A verified handshake (Discord's PING, Zoom's URL validation) is the preset's to answer.
      const handshake = verify ? preset?.handshake?.(request) : undefined;
      if (handshake) return { action: 'respond', response: handshake, stored: false };
      if (preset?.passThrough?.(request)) return { action: 'pass' };
      // A route set's question before storing: an event no route takes is acknowledged unstored
      // (or refused). Payloads are checked against their schemas by the worker.
      const admission = routing && (await routing.admit(request, false));
      if (admission && admission.kind !== 'run') {
        const { provider } = routing!;
        if (admission.kind === 'ignore') {
          emit({ type: 'ignored', provider, event: admission.event });
          return { action: 'respond', response: answers.stored, stored: false };
        }
        emit({ type: 'refused', provider, event: admission.error.event });
        return refuse(admission.error, request);
      }
      const provider = keys.provider(request);
      const externalId = keys.key(request);
      if (externalId === undefined || externalId === null || externalId === '') {
        if (onMissingKey === RequestPolicy.PASSTHROUGH) return { action: 'pass' };
        const message = `The request carries no ${keys.keyDescription} (provider "${provider}"); nothing was stored`;
        return refuse(new IdempotencyError(ErrorCode.KEY_MISSING, message), request);
      }
      let key: RequestKey;
      let ordering: string | null;
      const body = request.rawBody ?? (announcesBody(request) ? undefined : Buffer.alloc(0));
      if (body === undefined) throw rawBodyMissing();
      try {
        key = new RequestKey(provider, externalId);
        ordering = validOrderingKey(orderingKey?.(request.native, body));
      } catch (error) {
        return refuse(error, request);
      }
      // Over budget: a delivery already stored is a duplicate as always; a new one is refused unstored.
      const refused = await gate?.check(key);
      if (refused?.outcome === 'duplicate')
        emit({ type: 'duplicate', provider: key.provider, externalId: key.externalId });
      if (refused)
        return answered(key, started, refused.outcome, {
          action: 'respond',
          response: refused.outcome === 'duplicate' ? answers.duplicate : refused.response,
          stored: false,
        });
      let stored: boolean;
      try {
        stored = await inbox.enqueue({
          provider: key.provider,
          externalId: key.externalId,
          orderingKey: ordering,
          headers: pickHeaders(request),
          body,
        });
      } catch (error) {
        emit({ type: 'store-error', operation: 'enqueue', error });
        const refusal = refuse(new StoreError('enqueue', error, 'inbox'), request);
        return answered(key, started, 'store_error', refusal);
      }
      emit({
        type: stored ? 'stored' : 'duplicate',
        provider: key.provider,
        externalId: key.externalId,
      });
      const response = stored ? answers.stored : answers.duplicate;
      return answered(key, started, stored ? 'stored' : 'duplicate', {
        action: 'respond',
        response,
        stored,
      });
    },
  };
}
