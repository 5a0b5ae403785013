/** @module The options every adapter takes (one shape), and `resolveOptions`, which checks them once. */
import { registerRetention } from '../retention';
import { ConfigError, InvalidRequestKey } from '../errors';
import { IdempotencyGuard } from '../guard';
import type { GuardOptions } from '../guard-options';
import { RequestKey, type ExternalId } from '../request-key';
import type { Store } from '../types';
import {
  DEFAULT_IN_PROGRESS_STATUS,
  DEFAULT_KEY_DESCRIPTION,
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_REPLAYED_HEADER,
  HTTP_TOKEN,
  RequestPolicy,
} from './constants';
import { defaultFingerprint } from './fingerprint';
import { answerCodec, type AnswerCodec } from './response-codec';
import type { HttpRequest, ProviderPreset } from './types';

/**
 * Options of the HTTP engine, passed unchanged by every adapter (`idempotent(options)`, the
 * Fastify plugin). `undefined` means "the default"; an invalid value throws a `ConfigError`
 * naming the option, at construction. Reference: docs/reference/configuration.md.
 * @typeParam Native the framework's request: Express `req`, Fastify `request`, Koa `ctx`.
 * @typeParam Tx the transaction handle of a transactional store.
 */
export interface IdempotencyOptions<Native = unknown, Tx = unknown> {
  /** Where receipts live. Exactly one of `store` and `guard` is required. */
  store?: Store<Tx>;
  /** A ready guard (its store, clock, codec and events). Exactly one of `store` and `guard` is required. */
  guard?: IdempotencyGuard<Tx>;
  /** With `store` only: age after which a `processing` claim is taken over. Defaults to 300. */
  staleAfterSeconds?: number;
  /**
   * With `store` only: run the route handler inside a store transaction that also writes
   * `completed`; the handler reaches it as `idempotency.transaction`. Defaults to `false`.
   */
  transactional?: boolean;
  /**
   * With `store` only, transactional mode: the longest a handler's transaction stays open; at the
   * deadline it is rolled back and the caller gets 503 with `Retry-After`. Below
   * `staleAfterSeconds`; defaults to it minus 10 % (at most 30 s less).
   */
  handlerTimeoutSeconds?: number;
  /** With `store` only: the guard's clock, milliseconds since the epoch. Defaults to `Date.now`. */
  clock?: GuardOptions['clock'];
  /** With `store` only: receives the guard's events (claimed, replayed, failed, …). */
  onEvent?: GuardOptions['onEvent'];
  /** With `store` only: mixed into every handler's `effectKey(name)` (see the guard's option). Defaults to none. */
  effectKeyNamespace?: string;
  /** Provider knowledge (key, signature, fingerprint, protocol answers). Excludes `provider` and `key`. */
  preset?: ProviderPreset;
  /** The receipts' provider: a name, or a function of the request (`/webhooks/:provider`). Required without `preset`. */
  provider?: string | ((native: Native) => string);
  /** The provider's id for this delivery, from the request; `undefined`, `null` or `''` when it has none. Required without `preset`. */
  key?: (native: Native) => ExternalId | null | undefined;
  /** How the 400 answer names the missing key (`'X-GitHub-Delivery header'`). Defaults to the preset's, else `'delivery id'`. */
  keyDescription?: string;
  /** A request without a key: `'reject'` answers 400, `'passthrough'` runs the handler unguarded. Defaults to `'reject'`. */
  onMissingKey?: RequestPolicy;
  /** The store fails before the handler ran: `'reject'` answers 503 (fail closed), `'passthrough'` runs it unguarded. Defaults to `'reject'`. */
  onStoreError?: RequestPolicy;
  /** Authenticity check on the raw bytes, before any claim; `false` answers 401 and writes no receipt. A throw goes to the framework. */
  verify?: (native: Native, rawBody: Buffer | undefined) => boolean | Promise<boolean>;
  /**
   * `true`: SHA-256 of the raw body (falling back to a canonical JSON of the parsed body when the
   * raw bytes are gone); `false`: no fingerprint check; or your own function. A preset's
   * `fingerprint` takes precedence over `true`. Defaults to `true`.
   */
  fingerprint?: boolean | ((request: HttpRequest<Native>) => string | null | undefined);
  /** Status of the answer while another worker holds a fresh claim: 409 or 503, with `Retry-After`. Defaults to 409. */
  inProgressStatus?: 409 | 503;
  /** Name of the header set to `true` on replays. Defaults to `'Idempotent-Replayed'`. */
  replayedHeader?: string;
  /** Largest response body stored for replay, in bytes; a larger answer fails loudly. Defaults to 4 MiB. */
  maxResponseBytes?: number;
}

/** {@link IdempotencyOptions} resolved: every value present and checked, callbacks normalised. */
export interface EngineConfig<Native = unknown, Tx = unknown> {
  readonly guard: IdempotencyGuard<Tx>;
  readonly preset: ProviderPreset | undefined;
  readonly provider: (request: HttpRequest<Native>) => string;
  readonly key: (request: HttpRequest<Native>) => ExternalId | null | undefined;
  readonly keyDescription: string;
  readonly onMissingKey: RequestPolicy;
  readonly onStoreError: RequestPolicy;
  /** The preset's check then yours; `undefined` when there is none. */
  readonly verify: ((request: HttpRequest<Native>) => Promise<boolean>) | undefined;
  readonly passThrough: ((request: HttpRequest<Native>) => boolean) | undefined;
  /** `undefined` when fingerprinting is off. */
  readonly fingerprint: ((request: HttpRequest<Native>) => string | null | undefined) | undefined;
  readonly inProgressStatus: 409 | 503;
  /** As given (its case is kept on the wire). */
  readonly replayedHeader: string;
  readonly maxResponseBytes: number;
  /** The preset needs the raw bytes: a request without them fails with `ERR_IDEMPOTENCY_RAW_BODY_MISSING`. */
  readonly needsRawBody: boolean;
  /** How answers are stored and replayed: see {@link AnswerCodec}. */
  readonly storeAnswer: AnswerCodec['storeAnswer'];
  readonly readAnswer: AnswerCodec['readAnswer'];
}

const GUARD_OPTIONS = [
  'staleAfterSeconds',
  'transactional',
  'handlerTimeoutSeconds',
  'clock',
  'onEvent',
  'effectKeyNamespace',
] as const;
const KNOWN = new Set<string>([
  'store',
  'guard',
  ...GUARD_OPTIONS,
  'preset',
  'provider',
  'key',
  'keyDescription',
  'onMissingKey',
  'onStoreError',
  'verify',
  'fingerprint',
  'inProgressStatus',
  'replayedHeader',
  'maxResponseBytes',
]);

function policy(option: string, value: unknown): RequestPolicy {
  if (value === undefined) return RequestPolicy.REJECT;
  if (value === RequestPolicy.REJECT || value === RequestPolicy.PASSTHROUGH) return value;
  throw new ConfigError(option, `must be 'reject' or 'passthrough', got ${String(value)}`);
}

function optionalFunction(option: string, value: unknown): void {
  if (value !== undefined && typeof value !== 'function')
    throw new ConfigError(option, 'must be a function');
}

function makeGuard<Tx>(options: IdempotencyOptions<never, Tx>): IdempotencyGuard<Tx> {
  const { store, guard } = options;
  if ((store === undefined) === (guard === undefined)) {
    throw new ConfigError('store', 'exactly one of `store` and `guard` is required');
  }
  if (guard !== undefined) {
    if (!(guard instanceof IdempotencyGuard))
      throw new ConfigError('guard', 'must be an IdempotencyGuard');
    const extra = GUARD_OPTIONS.find((name) => options[name] !== undefined);
    if (extra)
      throw new ConfigError(
        extra,
        'configures the guard: pass it to `new IdempotencyGuard(...)`, or pass `store` instead of `guard`',
      );
    return guard;
  }
  const guardOptions: GuardOptions = {};
  for (const name of GUARD_OPTIONS)
    if (options[name] !== undefined) Object.assign(guardOptions, { [name]: options[name] });
  return new IdempotencyGuard(store as Store<Tx>, guardOptions);
}

/** The provider, key and key description of `options` (a preset, or `provider` + `key`), checked. Shared with the inbox endpoint. */
export function keyConfig<Native>(
  options: IdempotencyOptions<Native, unknown>,
): Pick<EngineConfig<Native>, 'provider' | 'key' | 'keyDescription'> {
  const { preset, provider, key, keyDescription } = options;
  if (
    keyDescription !== undefined &&
    (typeof keyDescription !== 'string' || keyDescription === '')
  ) {
    throw new ConfigError('keyDescription', 'must be a non-empty string');
  }
  if (preset !== undefined) {
    if (
      typeof preset !== 'object' ||
      preset === null ||
      typeof preset.key !== 'function' ||
      typeof preset.provider !== 'string'
    ) {
      throw new ConfigError(
        'preset',
        'must be a ProviderPreset (a `provider` name and a `key(request)` function)',
      );
    }
    if (provider !== undefined || key !== undefined)
      throw new ConfigError(
        key !== undefined ? 'key' : 'provider',
        'cannot be combined with `preset`',
      );
    const name = preset.provider;
    return {
      provider: () => name,
      key: (request) => preset.key(request),
      keyDescription: keyDescription ?? preset.keyDescription ?? `${name} delivery id`,
    };
  }
  if (typeof key !== 'function')
    throw new ConfigError(
      'key',
      'is required without `preset`: a function of the request returning the delivery id',
    );
  if (typeof provider === 'string') {
    try {
      new RequestKey(provider, 'x');
    } catch (error) {
      if (error instanceof InvalidRequestKey) throw new ConfigError('provider', error.message);
      throw error;
    }
  } else if (typeof provider !== 'function') {
    throw new ConfigError(
      'provider',
      'is required without `preset`: a provider name, or a function of the request returning one',
    );
  }
  const name = provider;
  return {
    provider: typeof name === 'string' ? () => name : (request) => name(request.native),
    key: (request) => key(request.native),
    keyDescription: keyDescription ?? DEFAULT_KEY_DESCRIPTION,
  };
}

function fingerprintConfig<Native>(
  options: IdempotencyOptions<Native, unknown>,
): EngineConfig<Native>['fingerprint'] {
  const { fingerprint = true, preset } = options;
  if (typeof fingerprint === 'function') return fingerprint;
  if (typeof fingerprint !== 'boolean')
    throw new ConfigError('fingerprint', 'must be a boolean or a function of the request');
  if (!fingerprint) return undefined;
  const own = preset?.fingerprint;
  return own ? (request) => own.call(preset, request) : defaultFingerprint;
}

/** The preset's signature check, then the `verify` option; `undefined` when there is neither. Shared with the inbox endpoint. */
export function verifyConfig<Native>(
  options: IdempotencyOptions<Native, unknown>,
): EngineConfig<Native>['verify'] {
  const { verify, preset } = options;
  optionalFunction('verify', verify);
  const presetVerify = preset?.verify;
  if (!verify && !presetVerify) return undefined;
  return async (request) => {
    if (presetVerify && !(await presetVerify.call(preset, request))) return false;
    return verify ? (await verify(request.native, request.rawBody)) === true : true;
  };
}

/**
 * Checks `options` and resolves every default: called once, when a middleware or plugin is
 * created, never per request.
 * @throws {ConfigError} naming the first invalid option.
 */
export function resolveOptions<Native = unknown, Tx = unknown>(
  options: IdempotencyOptions<Native, Tx>,
): EngineConfig<Native, Tx> {
  if (typeof options !== 'object' || options === null)
    throw new ConfigError('options', 'must be an object with `store` or `guard`');
  const unknown = Object.keys(options).find((name) => !KNOWN.has(name));
  if (unknown !== undefined)
    throw new ConfigError(unknown, 'is not an option of webhook-idempotency');
  const {
    inProgressStatus = DEFAULT_IN_PROGRESS_STATUS,
    replayedHeader = DEFAULT_REPLAYED_HEADER,
    maxResponseBytes = DEFAULT_MAX_RESPONSE_BYTES,
  } = options;
  if (inProgressStatus !== 409 && inProgressStatus !== 503)
    throw new ConfigError(
      'inProgressStatus',
      `must be 409 or 503, got ${String(inProgressStatus)}`,
    );
  if (typeof replayedHeader !== 'string' || !HTTP_TOKEN.test(replayedHeader)) {
    throw new ConfigError(
      'replayedHeader',
      `must be a valid header name, got ${String(replayedHeader)}`,
    );
  }
  if (!Number.isSafeInteger(maxResponseBytes) || maxResponseBytes < 0) {
    throw new ConfigError(
      'maxResponseBytes',
      `must be a whole number of bytes >= 0, got ${String(maxResponseBytes)}`,
    );
  }
  const guard = makeGuard(options as IdempotencyOptions<never, Tx>);
  const { preset } = options;
  const passThrough = preset?.passThrough;
  const config: EngineConfig<Native, Tx> = {
    guard,
    preset,
    ...keyConfig(options),
    onMissingKey: policy('onMissingKey', options.onMissingKey),
    onStoreError: policy('onStoreError', options.onStoreError),
    verify: verifyConfig(options),
    passThrough: passThrough ? (request) => passThrough.call(preset, request) : undefined,
    fingerprint: fingerprintConfig(options),
    inProgressStatus,
    replayedHeader,
    maxResponseBytes,
    needsRawBody: preset?.needsRawBody === true,
    ...answerCodec(guard, maxResponseBytes, replayedHeader),
  };
  // Once every option is valid: the preset's retry window guards its receipts on this store
  // against a shorter purge (guard.purge).
  if (preset) registerRetention(guard.store, preset.provider, preset.retentionDays);
  return config;
}

/**
 * Options of one route over the options of a whole plugin (Fastify's per-route `config`): the
 * route's values win, and naming `store`/`guard` or `preset`/`provider`+`key` on the route
 * replaces the other choice of the pair instead of clashing with it.
 */
export function mergeOptions<Native, Tx>(
  base: IdempotencyOptions<Native, Tx>,
  override: Partial<IdempotencyOptions<Native, Tx>>,
): IdempotencyOptions<Native, Tx> {
  const merged: Record<string, unknown> = { ...base };
  const has = (name: string) => (override as Record<string, unknown>)[name] !== undefined;
  if (has('store')) delete merged.guard;
  if (has('guard')) for (const name of ['store', ...GUARD_OPTIONS]) delete merged[name];
  if (has('preset')) for (const name of ['provider', 'key', 'keyDescription']) delete merged[name];
  if (has('key') || has('provider')) delete merged.preset;
  if (has('key')) delete merged.keyDescription;
  for (const [name, value] of Object.entries(override))
    if (value !== undefined) merged[name] = value;
  return merged as IdempotencyOptions<Native, Tx>;
}
