/**
 * @module The framework-free HTTP engine: a request record in, a decision out; adapters only
 * translate. `begin` is one straight path with no promise of its own before the claim: the checks
 * that need no store answer synchronously, the claim is the store's one call, and its answer goes
 * to the request's {@link Delivery}, which decides, runs and reports the delivery from there.
 */
import { ErrorCode, IdempotencyError } from '../errors';
import { RequestKey } from '../request-key';
import { answerFor } from './answers';
import { BatchItems } from './batch';
import { type ReadBatch, readBatch } from './batch-read';
import type { PresetItem } from './batch-types';
import { RequestPolicy, UNGUARDED_METHODS } from './constants';
import { type Decision, type Engine, PASS } from './decision';
import { Delivery } from './delivery';
import { resolveOptions, type EngineConfig, type IdempotencyOptions } from './options';
import { gateFor, type RouteGate } from './routed';
import type { HttpRequest, ProviderPreset } from './types';

export type { RequestIdempotency } from './batch-types';
export type { Decision, Engine, PendingRun } from './decision';
export { responseNotCaptured } from './delivery';

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

const signatureInvalid = (message: string) =>
  new IdempotencyError(ErrorCode.SIGNATURE_INVALID, message);

class HttpEngine<Native, Tx> implements Engine<Native, Tx> {
  constructor(
    readonly config: EngineConfig<Native, Tx>,
    private readonly gate?: RouteGate,
  ) {}

  begin(request: HttpRequest<Native>): Promise<Decision<Tx>> {
    try {
      return this.decide(request);
    } catch (error) {
      // A user callback (`key`, `provider`) threw, or the raw bytes are missing: the framework's.
      return Promise.reject(error);
    }
  }

  private decide(request: HttpRequest<Native>): Promise<Decision<Tx>> {
    const config = this.config;
    // A GET (or another method the guard leaves alone) passes, unless the preset answers it as its
    // provider's challenge.
    if (UNGUARDED_METHODS.has(request.method))
      return Promise.resolve(readAnswer(config.preset, request) ?? PASS);
    const started = config.guard.tracer.now();
    if (config.needsRawBody && request.rawBody === undefined) {
      // Nothing was parsed into data either (a content-type the JSON parser does not read): a
      // request that cannot be verified, not a broken setup. Data parsed without its bytes kept is.
      if (nothingParsed(request.body)) {
        const message =
          'The request failed verification: no raw request bytes reached the adapter (a content-type the body parser does not read, or no raw-body parser: docs/guides/raw-body.md); no receipt was written';
        return this.refuse(signatureInvalid(message), request);
      }
      throw new IdempotencyError(
        ErrorCode.RAW_BODY_MISSING,
        `The ${config.preset?.provider} preset needs the raw request bytes and the adapter got none: keep them before any body parser consumes them (docs/guides/raw-body.md)`,
      );
    }
    const { verify } = config;
    if (!verify) return this.verified(request, started);
    return verify(request).then((ok) =>
      ok
        ? this.verified(request, started)
        : this.refuse(
            signatureInvalid('The request failed verification; no receipt was written'),
            request,
          ),
    );
  }

  /** A request that passed verification (or needs none): a handshake, a pass-through, or a key to claim. */
  private verified(request: HttpRequest<Native>, started: number): Promise<Decision<Tx>> {
    const config = this.config;
    // A verified handshake is the preset's to answer: no claim, no receipt, no handler. Only a
    // verified one: without a check, a handshake-shaped request goes on as a delivery.
    const handshake = config.verify ? config.preset?.handshake?.(request) : undefined;
    if (handshake)
      return Promise.resolve({ action: 'respond', response: handshake, replayed: false });
    if (config.passThrough?.(request)) return Promise.resolve(PASS);
    // A route set's question before any claim: is this delivery routed (and is its payload valid)?
    const { gate } = this;
    if (!gate) return this.keyed(request, started);
    return gate
      .check(request, started)
      .then((unrouted) =>
        unrouted
          ? { action: 'respond', response: unrouted, replayed: false }
          : this.keyed(request, started),
      );
  }

  /** A delivery to claim: its key (or its batch's), read from the request. */
  private keyed(request: HttpRequest<Native>, started: number): Promise<Decision<Tx>> {
    const config = this.config;
    const provider = config.provider(request);
    const items = config.preset?.items?.(request);
    if (items !== undefined) return this.batch(provider, items, request, started);
    const externalId = config.key(request);
    if (externalId === undefined || externalId === null || externalId === '') {
      if (config.onMissingKey === RequestPolicy.PASSTHROUGH) return Promise.resolve(PASS);
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
    return this.claim(key, fingerprint, request, started, undefined);
  }

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

  /** Claims the key; the request's {@link Delivery} takes the claim's answer from there. */
  private claim(
    key: RequestKey,
    fingerprint: string | null,
    request: HttpRequest<Native>,
    started: number,
    batch: ReadBatch | undefined,
  ): Promise<Decision<Tx>> {
    const { config } = this;
    const { guard } = config;
    const verified = config.verify !== undefined;
    const trace = guard.tracer.open(key, started);
    const items = batch && new BatchItems(guard, batch.entries, verified, config, request);
    const since = trace.now();
    const delivery = new Delivery(config, request, trace, since, items);
    return guard.claimTraced(key, fingerprint, verified, trace, since).then(
      (claim) => delivery.claimed(claim),
      (error: unknown) => delivery.refused(error),
    );
  }

  /** The engine's own answer for `error`, or a rejection carrying it for the framework. */
  private refuse(error: unknown, request: HttpRequest<Native>): Promise<Decision<Tx>> {
    const response = answerFor(error, this.config, request);
    if (!response) return Promise.reject(error);
    return Promise.resolve({ action: 'respond', response, replayed: false });
  }
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
  const gate = gateFor(config.preset, config.guard.tracer, config, config.guard.store);
  const engine = new HttpEngine(config, gate);
  if (!gate) return engine;
  // A route set's claimed delivery runs its route here, so every adapter just sends the answer.
  return {
    config,
    begin: async (request) =>
      (await gate.drive(await engine.begin(request), request)) as Decision<Tx>,
  };
}
