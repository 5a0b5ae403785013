/**
 * @module The inbox endpoint, framework-free: verify, extract the key, store the
 * verified bytes (a batched preset's request: one delivery per item), answer 2xx at once.
 * Adapters translate a request in and the answer out.
 */
import { ErrorCode, IdempotencyError, InvalidRequestKey, StoreError } from '../errors';
import { answerFor } from '../http/answers';
import { RequestPolicy, UNGUARDED_METHODS } from '../http/constants';
import type { PresetItem } from '../http/batch-types';
import type { HttpRequest, HttpResponseRecord, ProviderPreset } from '../http/types';
import { checkKeyPart, RequestKey } from '../request-key';
import { ITEM_CONTENT_TYPE, type KeyedDelivery, type SplitBatch, splitBatch } from './accept-batch';
import { DEFAULT_INBOX_HEADERS, type InboxResponse } from './accept-answers';
import { type InboxConfig, type InboxOptions, resolveInboxOptions } from './accept-options';
import { BackpressureGate, type GateAnswer, type InboxBackpressureOptions } from './backpressure';
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
type Keyed = KeyedDelivery;

const isKeyMissing = (error: unknown) =>
  error instanceof IdempotencyError && error.code === ErrorCode.KEY_MISSING;

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
    const items = preset?.items?.(request);
    if (items !== undefined) return this.acceptBatch(items, request, started);
    const keyed = this.keyed(request);
    if (!('key' in keyed)) return keyed;
    const gated = await this.gated([keyed.key]);
    if (!gated) return this.store(keyed, request, started);
    return this.answered(keyed.key, started, gated.outcome, this.gateAnswer(gated));
  }

  /**
   * A batched preset's request: each item stored as a delivery of its own. An item without a
   * usable id is refused alone, as the guard refuses it: the others are stored and the batch is
   * answered with its refusal (400), which every redelivery gets again, storing nothing twice.
   */
  private async acceptBatch(
    items: readonly PresetItem[],
    request: HttpRequest<Native>,
    started: number,
  ): Promise<InboxDecision> {
    const { keys, onMissingKey, orderingKey } = this.config;
    let batch: SplitBatch;
    try {
      batch = splitBatch(keys.provider(request), items, keys.keyDescription, (body) =>
        validOrderingKey(orderingKey?.(request.native, body)),
      );
    } catch (error) {
      if (isKeyMissing(error) && onMissingKey === RequestPolicy.PASSTHROUGH)
        return { action: 'pass' };
      return this.refuse(error, request);
    }
    const gated = await this.gated(batch.items.map((item) => item.key));
    if (gated?.outcome === 'backpressure')
      return this.answered(batch.key, started, 'backpressure', this.gateAnswer(gated));
    let stored = false;
    try {
      if (!gated) stored = await this.storeItems(batch.items, request);
    } catch (error) {
      return this.answered(batch.key, started, 'store_error', this.refuse(error, request));
    }
    const answer = batch.refused
      ? { ...this.refuse(batch.refused, request), stored }
      : this.storedAnswer(stored);
    return this.answered(batch.key, started, stored ? 'stored' : 'duplicate', answer);
  }

  /**
   * Over the backlog budget: `duplicate` when every delivery is stored already (answered as
   * always), the refusal when any is new; `undefined` to store (no budget, or not over it).
   */
  private async gated(keys: readonly RequestKey[]): Promise<GateAnswer | undefined> {
    if (!this.gate) return undefined;
    for (const key of keys) {
      const answer = await this.gate.check(key);
      if (answer?.outcome !== 'duplicate') return answer;
    }
    for (const { provider, externalId } of keys)
      this.emit({ type: 'duplicate', provider, externalId });
    return { outcome: 'duplicate' };
  }

  private gateAnswer(gated: GateAnswer): InboxDecision {
    if (gated.outcome === 'duplicate') return this.storedAnswer(false);
    return { action: 'respond', response: gated.response, stored: false };
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
    keyed: Keyed,
    request: HttpRequest<Native>,
    started: number,
  ): Promise<InboxDecision> {
    let stored: boolean;
    try {
      stored = await this.enqueue(keyed, this.pickHeaders(request));
    } catch (error) {
      return this.answered(keyed.key, started, 'store_error', this.refuse(error, request));
    }
    return this.answered(
      keyed.key,
      started,
      stored ? 'stored' : 'duplicate',
      this.storedAnswer(stored),
    );
  }

  /**
   * Stores a batch's items one at a time, in the request's order (the order an ordering key
   * processes them in), each with the request's stored headers and a JSON content type: `true`
   * when any was new. A store error stops it (503): the items stored before stay, and the
   * provider's retry of the batch stores the rest (each insert is idempotent), so no transaction
   * across items is needed.
   */
  private async storeItems(
    items: readonly Keyed[],
    request: HttpRequest<Native>,
  ): Promise<boolean> {
    const headers = { ...this.pickHeaders(request), 'content-type': ITEM_CONTENT_TYPE };
    let stored = false;
    for (const item of items) if (await this.enqueue(item, headers)) stored = true;
    return stored;
  }

  /**
   * One delivery into the inbox: `true` stored now, `false` a duplicate.
   * @throws {StoreError} when the store failed (a `store-error` event is emitted).
   */
  private async enqueue(
    { key, ordering, body }: Keyed,
    headers: Record<string, string>,
  ): Promise<boolean> {
    const { provider, externalId } = key;
    let stored: boolean;
    try {
      const delivery = { provider, externalId, orderingKey: ordering, headers, body };
      stored = await this.config.inbox.enqueue(delivery);
    } catch (error) {
      this.emit({ type: 'store-error', operation: 'enqueue', error });
      throw new StoreError('enqueue', error, 'inbox');
    }
    this.emit({ type: stored ? 'stored' : 'duplicate', provider, externalId });
    return stored;
  }

  /** The 2xx answer: as stored, or as a duplicate (with the replayed header). */
  private storedAnswer(stored: boolean): InboxDecision {
    const { answers } = this.config;
    return { action: 'respond', response: stored ? answers.stored : answers.duplicate, stored };
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
