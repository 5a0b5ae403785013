/** @module The framework-free HTTP engine: a request record in, a decision out; adapters only translate. */
import { DeliveryOutcome } from '../constants';
import { ErrorCode, IdempotencyError, StoreError } from '../errors';
import { RequestKey } from '../request-key';
import type { Claim } from '../guard';
import type { ClaimTicket } from '../ticket';
import type { OpenTransaction } from '../ticket-transaction';
import { outcomeOf, type Trace } from '../trace';
import { BatchRun } from './batch';
import { type ReadBatch, readBatch } from './batch-read';
import type { PresetItem, RequestIdempotency } from './batch-types';
import { IN_TRANSACTION, ON_TICKET, Run } from './runs';
import { answerFor, errorAnswer } from './answers';
import { gateFor, type RouteGate } from './routed';
import { RequestPolicy, UNGUARDED_METHODS } from './constants';
import { resolveOptions, type EngineConfig, type IdempotencyOptions } from './options';
import { decodeResponse, type CapturedResponse, type StoredResponse } from './response-codec';
import type { HttpRequest, HttpResponseRecord, ProviderPreset } from './types';

export type { RequestIdempotency } from './batch-types';

export { responseNotCaptured } from './runs';

/**
 * A claimed delivery whose handler is running. The adapter buffers the handler's answer and
 * calls exactly one of the two methods; it flushes nothing before the returned promise settles,
 * so the receipt is written before the provider sees an answer.
 */
export interface PendingRun {
  /**
   * Records the handler's answer: a 2xx completes the receipt, anything else marks it `failed`.
   * Resolves with `null` when the handler's answer goes out unchanged, or with a guard answer to
   * send instead when the result could not be recorded (409 claim lost, 503 store failure).
   * Rejects with `ERR_IDEMPOTENCY_RESPONSE_TOO_LARGE` (receipt `failed`): hand it to the framework.
   */
  finish(response: CapturedResponse): Promise<HttpResponseRecord | null>;
  /**
   * The handler threw: marks the receipt `failed` and resolves once that is written (never
   * rejects). Resolves with a guard answer to send instead of passing the error on (503 with
   * `Retry-After`) when the failure was the store's: the transaction's connection was lost under
   * the handler, whose error is then only a consequence of it. Else with `null`.
   */
  abort(error: unknown): Promise<HttpResponseRecord | null>;
  /**
   * The handler answered around the adapter (Fastify `reply.hijack()`, Koa `ctx.respond = false`),
   * so only the status that went out is known (`undefined`: the connection closed before the answer
   * finished). The provider has seen a 2xx: the run is recorded as completed with that status and
   * an empty body (in transactional mode its writes commit), so a redelivery is replayed instead of
   * running the handler again. Anything else marks the receipt `failed` with
   * `ERR_IDEMPOTENCY_RESPONSE_NOT_CAPTURED`. Never rejects.
   */
  answeredAround(status: number | undefined, how: string): Promise<void>;
  /**
   * Registers what to do when the guard gives up on the run before the handler answered (the
   * transactional deadline, DESIGN.md §10): `send` gets the answer to write now (503 with
   * `Retry-After`); the adapter then drops whatever the handler writes later.
   */
  onExpire(send: (answer: HttpResponseRecord) => void): void;
  /**
   * Whether the run has a deadline at all (transactional mode): when `false`, `onExpire` never
   * calls back, and an adapter need not set anything up per request to wait for it.
   */
  readonly expires: boolean;
  /**
   * Calls `fn` (the adapter's `next`) in the async context of the claimed run, so that what the
   * handler does through the store's own connection (a nested guard, `guard.find`) is seen as part
   * of its transaction instead of waiting for it (a single-connection store such as better-sqlite3).
   */
  enter<T>(fn: () => T): T;
}

/** What {@link Engine.begin} decided. */
export type Decision<Tx = unknown> =
  /** Send this answer now and do not run the handler: a replay or the engine's own 400/401/409/422/503. */
  | {
      readonly action: 'respond';
      readonly response: HttpResponseRecord;
      readonly replayed: boolean;
    }
  /** Run the handler unguarded (preset pass-through, `onMissingKey`/`onStoreError: 'passthrough'`). */
  | { readonly action: 'pass' }
  /** Run the handler, capture its answer and give it to `run.finish` (or its error to `run.abort`). */
  | {
      readonly action: 'run';
      readonly idempotency: RequestIdempotency<Tx>;
      readonly run: PendingRun;
    };

/** The HTTP policy in one object, built once per middleware or plugin. */
export interface Engine<Native = unknown, Tx = unknown> {
  /** The resolved options. */
  readonly config: EngineConfig<Native, Tx>;
  /**
   * Decides what to do with one request: verify, extract the key, fingerprint, claim.
   * Rejects only with errors for the framework's own handling: `ERR_IDEMPOTENCY_RAW_BODY_MISSING`
   * or an error thrown by a user callback (`key`, `provider`, `verify`).
   */
  begin(request: HttpRequest<Native>): Promise<Decision<Tx>>;
}

const PASS = { action: 'pass' } as const;

/** A read (GET, HEAD) the preset answers as its provider's challenge; `undefined` lets it pass. */
function readAnswer(
  preset: ProviderPreset | undefined,
  request: HttpRequest,
): Decision<never> | undefined {
  if (request.method !== 'GET' && request.method !== 'HEAD') return undefined;
  const response = preset?.challenge?.(request);
  return response ? { action: 'respond', response, replayed: false } : undefined;
}

/**
 * True unless a parser turned the body into data (a JSON or form parser without the raw bytes
 * kept: the setup error). A missing, empty or text body only means the request cannot be verified.
 */
function nothingParsed(body: unknown): boolean {
  if (body === undefined || body === null || typeof body !== 'object' || Buffer.isBuffer(body))
    return true;
  return Object.keys(body).length === 0;
}

class HttpEngine<Native, Tx> implements Engine<Native, Tx> {
  constructor(
    readonly config: EngineConfig<Native, Tx>,
    private readonly gate?: RouteGate,
  ) {}

  async begin(request: HttpRequest<Native>): Promise<Decision<Tx>> {
    const config = this.config;
    if (UNGUARDED_METHODS.has(request.method)) return readAnswer(config.preset, request) ?? PASS;
    const started = config.guard.tracer.now();
    if (config.needsRawBody && request.rawBody === undefined) {
      // Nothing was parsed into data either (a content-type the JSON parser does not read): a
      // request that cannot be verified, not a broken setup. Data parsed without its bytes kept is.
      if (nothingParsed(request.body)) {
        const message =
          'The request failed verification: no raw request bytes reached the adapter (a content-type the body parser does not read, or no raw-body parser: docs/guides/raw-body.md); no receipt was written';
        return this.refuse(new IdempotencyError(ErrorCode.SIGNATURE_INVALID, message), request);
      }
      throw new IdempotencyError(
        ErrorCode.RAW_BODY_MISSING,
        `The ${config.preset?.provider} preset needs the raw request bytes and the adapter got none: keep them before any body parser consumes them (docs/guides/raw-body.md)`,
      );
    }
    if (config.verify && !(await config.verify(request))) {
      return this.refuse(
        new IdempotencyError(
          ErrorCode.SIGNATURE_INVALID,
          'The request failed verification; no receipt was written',
        ),
        request,
      );
    }
    // A verified handshake is the preset's to answer: no claim, no receipt, no handler. Only a
    // verified one: without a check, a handshake-shaped request goes on as a delivery.
    const handshake = config.verify ? config.preset?.handshake?.(request) : undefined;
    if (handshake) return { action: 'respond', response: handshake, replayed: false };
    if (config.passThrough?.(request)) return PASS;
    // A route set's question before any claim: is this delivery routed (and is its payload valid)?
    const unrouted = await this.gate?.check(request, started);
    if (unrouted) return { action: 'respond', response: unrouted, replayed: false };
    const provider = config.provider(request);
    const items = config.preset?.items?.(request);
    if (items !== undefined) return this.batch(provider, items, request, started);
    const externalId = config.key(request);
    if (externalId === undefined || externalId === null || externalId === '') {
      if (config.onMissingKey === RequestPolicy.PASSTHROUGH) return PASS;
      const message = `The request carries no ${config.keyDescription} (provider "${provider}"), so it cannot be deduplicated`;
      return this.refuse(new IdempotencyError(ErrorCode.KEY_MISSING, message), request);
    }
    let key: RequestKey;
    try {
      key = new RequestKey(provider, externalId);
    } catch (error) {
      return this.refuse(error, request);
    }
    const fingerprint = config.fingerprint ? (config.fingerprint(request) ?? null) : null;
    return this.claim(key, fingerprint, request, started);
  }

  /**
   * A GET (or another method the guard leaves alone) passes, unless the preset answers it as its
   * handshake (Meta's `hub.challenge`): then only once `verify` accepted it, with no receipt.
   */
  /** A batched preset's request: keyed by a digest of its item ids, each item run by `batch.each`. */
  private batch(
    provider: string,
    items: readonly PresetItem[],
    request: HttpRequest<Native>,
    started: number,
  ): Promise<Decision<Tx>> {
    const { keyDescription, fingerprint, onMissingKey } = this.config;
    let read: ReadBatch;
    try {
      read = readBatch(provider, items, keyDescription, fingerprint !== undefined);
    } catch (error) {
      const missing = error instanceof IdempotencyError && error.code === ErrorCode.KEY_MISSING;
      if (missing && onMissingKey === RequestPolicy.PASSTHROUGH) return Promise.resolve(PASS);
      return this.refuse(error, request);
    }
    return this.claim(read.key, read.fingerprint, request, started, read);
  }

  private async claim(
    key: RequestKey,
    fingerprint: string | null,
    request: HttpRequest<Native>,
    started: number,
    batch?: ReadBatch,
  ): Promise<Decision<Tx>> {
    const { guard } = this.config;
    const trace = guard.tracer.open(key, started);
    let claim: Claim<StoredResponse, Tx>;
    try {
      const verified = this.config.verify !== undefined;
      claim = await guard.claimTraced<StoredResponse>(key, { fingerprint, verified }, trace);
    } catch (error) {
      return reported(await this.refuseClaim(error, request), trace, outcomeOf(error, false));
    }
    if (claim.isReplay) {
      const decision = this.replay(claim.response, request);
      const replayed = decision.action === 'respond' && decision.replayed;
      return reported(
        decision,
        trace,
        replayed ? DeliveryOutcome.REPLAY : DeliveryOutcome.STORE_ERROR,
      );
    }
    if (batch) {
      // The batch's own receipt is settled on its ticket: each item has its own transaction.
      const run = new Run(ON_TICKET, claim, this.config, request, trace) as Run<unknown>;
      const { entries } = batch;
      const verified = this.config.verify !== undefined;
      const context: RequestIdempotency<Tx> = claim.context;
      const runs = new BatchRun(run, guard, entries, verified, this.config, request, context);
      return { action: 'run', idempotency: runs.idempotency, run: runs };
    }
    if (!guard.transactional) {
      const run = new Run(ON_TICKET, claim, this.config, request, trace);
      return { action: 'run', idempotency: claim.context, run };
    }
    return this.inTransaction(claim, request, trace);
  }

  /** Opens the ticket's transaction; the decision is ready once the handler can write through it. */
  private async inTransaction(
    ticket: ClaimTicket<StoredResponse, Tx>,
    request: HttpRequest<Native>,
    trace: Trace,
  ): Promise<Decision<Tx>> {
    let open: OpenTransaction<StoredResponse, Tx>;
    try {
      open = await ticket.begin();
    } catch (error) {
      // The transaction could not begin: nothing ran, so the engine answers for it (503). The
      // claim was won: a begin that failed or ran out of time is a failed delivery.
      return reported(await this.refuseClaim(error, request), trace, outcomeOf(error, true));
    }
    const run = new Run(IN_TRANSACTION, open, this.config, request, trace);
    return { action: 'run', idempotency: open.context, run };
  }

  /** A claim that failed before the handler started: 503 (or pass-through) for a store failure, else the error's answer. */
  private refuseClaim(error: unknown, request: HttpRequest<Native>): Promise<Decision<Tx>> {
    if (error instanceof StoreError && this.config.onStoreError === RequestPolicy.PASSTHROUGH)
      return Promise.resolve(PASS);
    return this.refuse(error, request);
  }

  private replay(stored: unknown, request: HttpRequest<Native>): Decision<Tx> {
    let response: HttpResponseRecord;
    try {
      response = decodeResponse(stored);
    } catch (error) {
      const storeError = new StoreError(
        'replay (the receipt holds no HTTP response record)',
        error,
      );
      return {
        action: 'respond',
        response: errorAnswer(503, storeError, { 'retry-after': '1' }),
        replayed: false,
      };
    }
    const { preset, replayedHeader } = this.config;
    if (preset?.replay) response = preset.replay(response, request);
    return {
      action: 'respond',
      response: { ...response, headers: { ...response.headers, [replayedHeader]: 'true' } },
      replayed: true,
    };
  }

  /** The engine's own answer for `error`, or a rejection carrying it for the framework. */
  private async refuse(error: unknown, request: HttpRequest<Native>): Promise<Decision<Tx>> {
    const response = answerFor(error, this.config, request);
    if (!response) throw error;
    return { action: 'respond', response, replayed: false };
  }
}

/** Reports a decision the engine answered itself (a replay, 409, 422, 503) and hands it on. */
function reported<D extends Decision<unknown>>(
  decision: D,
  trace: Trace,
  outcome: DeliveryOutcome | undefined,
): D {
  trace.delivered(outcome, decision.action === 'respond' ? decision.response.status : undefined);
  return decision;
}

/**
 * Builds the engine an adapter calls for every request. Options are checked here, once.
 * @throws {ConfigError} naming the first invalid option.
 * @example
 * const engine = createEngine({ store, provider: 'github', key: (req) => req.headers['x-github-delivery'] });
 * const decision = await engine.begin({ method, url, headers, rawBody, body, native: req });
 * @see docs/reference/configuration.md
 */
export function createEngine<Native = unknown, Tx = unknown>(
  options: IdempotencyOptions<Native, Tx>,
): Engine<Native, Tx> {
  const config = resolveOptions(options);
  const gate = gateFor(config.preset, config.guard.tracer, config);
  const engine = new HttpEngine(config, gate);
  if (!gate) return engine;
  // A route set's claimed delivery runs its route here, so every adapter just sends the answer.
  return {
    config,
    begin: async (request) =>
      (await gate.drive(await engine.begin(request), request)) as Decision<Tx>,
  };
}
