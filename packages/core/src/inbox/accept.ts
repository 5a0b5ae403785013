/**
 * @module The inbox endpoint, framework-free: verify, extract the key, store the
 * verified bytes, answer 2xx at once. Adapters translate a request in and the answer out.
 */
import { ErrorCode, IdempotencyError, InvalidRequestKey, StoreError } from '../errors';
import { answerFor } from '../http/answers';
import { RequestPolicy, UNGUARDED_METHODS } from '../http/constants';
import type { HttpRequest, HttpResponseRecord, ProviderPreset } from '../http/types';
import { checkKeyPart, RequestKey } from '../request-key';
import { DEFAULT_INBOX_HEADERS, type InboxResponse } from './accept-answers';
import { type InboxConfig, type InboxOptions, resolveInboxOptions } from './accept-options';
import { BackpressureGate, type InboxBackpressureOptions } from './backpressure';
import type { AnsweredEvent } from './figures';
import type { InboxEvent } from './types';

export {
  DEFAULT_INBOX_HEADERS,
  type InboxBackpressureOptions,
  type InboxOptions,
  type InboxResponse,
};

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
  const endpoint = new InboxEndpoint(resolveInboxOptions(options));
  return { accept: (request) => endpoint.accept(request) };
}

/** A request's key, ordering key and bytes, read for storing. */
interface Keyed {
  readonly key: RequestKey;
  readonly ordering: string | null;
  readonly body: Buffer;
}

/** The inbox endpoint: each request verified, admitted, keyed, then stored and answered. */
class InboxEndpoint<Native> {
  private readonly refusals: { preset: ProviderPreset | undefined; inProgressStatus: 409 };
  private readonly gate: BackpressureGate | undefined;
  /** Clocks are read only when someone listens, as the guard does. */
  private readonly clock: () => number;

  constructor(private readonly config: InboxConfig<Native>) {
    const { preset, budget, inbox, onEvent } = config;
    this.refusals = { preset, inProgressStatus: 409 };
    this.gate = budget && new BackpressureGate(inbox, budget, (event) => this.emit(event));
    this.clock = onEvent ? () => performance.now() : () => 0;
  }

  async accept(request: HttpRequest<Native>): Promise<InboxDecision> {
    const started = this.clock();
    const { preset } = this.config;
    if (UNGUARDED_METHODS.has(request.method)) {
      // A read the preset answers as its provider's challenge (Braintree's bt_challenge).
      const read = request.method === 'GET' || request.method === 'HEAD';
      const challenge = read ? preset?.challenge?.(request) : undefined;
      return challenge
        ? { action: 'respond', response: challenge, stored: false }
        : { action: 'pass' };
    }
    if (request.rawBody === undefined && !nothingParsed(request.body)) throw rawBodyMissing();
    const early = await this.admit(request);
    if (early) return early;
    const keyed = this.keyed(request);
    if (!('key' in keyed)) return keyed;
    const { key } = keyed;
    // Over budget: a delivery already stored is a duplicate as always; a new one is refused unstored.
    const refused = await this.gate?.check(key);
    if (refused?.outcome === 'duplicate')
      this.emit({ type: 'duplicate', provider: key.provider, externalId: key.externalId });
    if (refused)
      return this.answered(key, started, refused.outcome, {
        action: 'respond',
        response:
          refused.outcome === 'duplicate' ? this.config.answers.duplicate : refused.response,
        stored: false,
      });
    return this.store(keyed, request, started);
  }

  /**
   * The answer to a request that is not to be stored: it failed verification, is a verified
   * handshake, passes through, or is an event no route takes (acknowledged unstored, or refused;
   * payloads are checked against their schemas by the worker). `undefined` to go on.
   */
  private async admit(request: HttpRequest<Native>): Promise<InboxDecision | undefined> {
    const { verify, preset, routing, answers } = this.config;
    if (verify && !(await verify(request))) {
      const error = new IdempotencyError(
        ErrorCode.SIGNATURE_INVALID,
        'The request failed verification; nothing was stored',
      );
      return this.refuse(error, request);
    }
    // A verified handshake (Discord's PING, Zoom's URL validation) is the preset's to answer.
    const handshake = verify ? preset?.handshake?.(request) : undefined;
    if (handshake) return { action: 'respond', response: handshake, stored: false };
    if (preset?.passThrough?.(request)) return { action: 'pass' };
    const admission = routing && (await routing.admit(request, false));
    if (!admission || admission.kind === 'run') return undefined;
    const { provider } = routing!;
    if (admission.kind === 'ignore') {
      this.emit({ type: 'ignored', provider, event: admission.event });
      return { action: 'respond', response: answers.stored, stored: false };
    }
    this.emit({ type: 'refused', provider, event: admission.error.event });
    return this.refuse(admission.error, request);
  }

  /** The request's key, ordering key and bytes, or the answer when it has no valid key. */
  private keyed(request: HttpRequest<Native>): Keyed | InboxDecision {
    const { keys, onMissingKey, orderingKey } = this.config;
    const provider = keys.provider(request);
    const externalId = keys.key(request);
    if (externalId === undefined || externalId === null || externalId === '') {
      if (onMissingKey === RequestPolicy.PASSTHROUGH) return { action: 'pass' };
      const message = `The request carries no ${keys.keyDescription} (provider "${provider}"); nothing was stored`;
      return this.refuse(new IdempotencyError(ErrorCode.KEY_MISSING, message), request);
    }
    const body = request.rawBody ?? (announcesBody(request) ? undefined : Buffer.alloc(0));
    if (body === undefined) throw rawBodyMissing();
    try {
      const key = new RequestKey(provider, externalId);
      return { key, ordering: validOrderingKey(orderingKey?.(request.native, body)), body };
    } catch (error) {
      return this.refuse(error, request);
    }
  }

  /** Stores the delivery: answered as stored, as a duplicate, or refused on a store error. */
  private async store(
    { key, ordering, body }: Keyed,
    request: HttpRequest<Native>,
    started: number,
  ): Promise<InboxDecision> {
    const { inbox, answers } = this.config;
    const { provider, externalId } = key;
    let stored: boolean;
    try {
      const headers = this.pickHeaders(request);
      stored = await inbox.enqueue({ provider, externalId, orderingKey: ordering, headers, body });
    } catch (error) {
      this.emit({ type: 'store-error', operation: 'enqueue', error });
      const refusal = this.refuse(new StoreError('enqueue', error, 'inbox'), request);
      return this.answered(key, started, 'store_error', refusal);
    }
    this.emit({ type: stored ? 'stored' : 'duplicate', provider, externalId });
    const response = stored ? answers.stored : answers.duplicate;
    const decision: InboxDecision = { action: 'respond', response, stored };
    return this.answered(key, started, stored ? 'stored' : 'duplicate', decision);
  }

  private emit(event: InboxEvent): void {
    try {
      this.config.onEvent?.(event);
    } catch {
      // An observer never changes an answer.
    }
  }

  private refuse(error: unknown, request: HttpRequest<Native>): InboxDecision {
    const response = answerFor(error, this.refusals, request);
    if (!response) throw error;
    return { action: 'respond', response, stored: false };
  }

  private pickHeaders(request: HttpRequest): Record<string, string> {
    const picked: Record<string, string> = {};
    for (const name of this.config.headerNames) {
      const value = request.headers[name];
      if (typeof value === 'string') picked[name] = value;
      else if (Array.isArray(value)) picked[name] = value.join(', ');
    }
    return picked;
  }

  private answered(
    key: RequestKey,
    started: number,
    outcome: AnsweredEvent['outcome'],
    decision: InboxDecision,
  ): InboxDecision {
    if (this.config.onEvent && decision.action === 'respond')
      this.emit({
        type: 'answered',
        provider: key.provider,
        externalId: key.externalId,
        outcome,
        status: decision.response.status,
        durationMs: this.clock() - started,
      });
    return decision;
  }
}
