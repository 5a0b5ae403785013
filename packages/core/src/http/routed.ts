/**
 * @module A route set over HTTP: the one question the engine asks before a claim ("is this
 * routed?", {@link RouteGate.check}), and the run of a claimed delivery's route, whose answer the
 * engine sends like any of its own ({@link RouteGate.drive}). Adapters pass the route set as their
 * `preset` and need nothing else: a routed request's decision is always `respond`.
 */
import { type IgnoredTally, ignoredTallyOf } from '../ignored';
import { type Admitted, type Routing, routingOf } from '../routing/routes';
import type { Tracer } from '../trace';
import type { Store } from '../types';
import { answerFor } from './answers';
import type { RunContext } from '../types';
import type { DeliveryBatch } from './batch-types';
import type { CapturedResponse } from './response-codec';
import type { HttpRequest, HttpResponseRecord, ProviderPreset } from './types';

/** What the gate reads of the engine's decision to run a claimed delivery (its `PendingRun`). */
interface RunDecision {
  readonly action: 'run';
  readonly idempotency: RunContext<unknown> & { readonly batch?: DeliveryBatch<unknown> };
  readonly run: {
    readonly expires: boolean;
    onExpire(send: (answer: HttpResponseRecord) => void): void;
    enter<T>(fn: () => T): T;
    abort(error: unknown): Promise<HttpResponseRecord | null>;
    finish(response: CapturedResponse): Promise<HttpResponseRecord | null>;
  };
}

/** The engine's decisions, as far as the gate tells them apart. */
type Decision =
  | RunDecision
  | {
      readonly action: 'respond';
      readonly response: HttpResponseRecord;
      readonly replayed: boolean;
    }
  | { readonly action: 'pass' };

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8' } as const;
const RECEIVED = Buffer.from('{"received":true}');

/** A route's return value as its answer: 200 JSON, `{"received":true}` for nothing. */
function answerOf(value: unknown): HttpResponseRecord {
  let text: string | undefined;
  try {
    text = value === undefined ? undefined : JSON.stringify(value);
  } catch {
    text = undefined;
  }
  const body = text === undefined ? RECEIVED : Buffer.from(text);
  return { status: 200, headers: JSON_HEADERS, body };
}

/** The route gate of an engine whose preset is a route set (`routes()`). */
export class RouteGate {
  /** What the check admitted, until the claimed run takes it. */
  private readonly admitted = new WeakMap<HttpRequest, Admitted>();

  constructor(
    private readonly routing: Routing,
    private readonly tracer: Tracer,
    private readonly config: {
      readonly preset: ProviderPreset | undefined;
      readonly inProgressStatus: 409 | 503;
    },
    private readonly tally?: IgnoredTally,
    /** Hears the tally's failed writes; held here because the tally holds it weakly. */
    readonly onTallyError?: (error: unknown) => void,
  ) {}

  /**
   * Before any claim: `undefined` when a route takes the request (claim and run it), else the
   * answer to send now, with nothing claimed or stored: 200 for an event no route takes (counted
   * as `ignored`, and in the store's ignored counts), 422 for a payload its route's schema refuses (`refused`).
   */
  async check(request: HttpRequest, started: number): Promise<HttpResponseRecord | undefined> {
    const admission = await this.routing.admit(request, true);
    const { provider } = this.routing;
    if (admission.kind === 'run') {
      this.admitted.set(request, admission.admitted);
      return undefined;
    }
    if (admission.kind === 'ignore') {
      this.tracer.ignored(provider, admission.event, started);
      this.tally?.count(provider, admission.event);
      return answerOf(undefined);
    }
    const { error } = admission;
    const issues = 'issues' in error ? error.issues : [];
    this.tracer.refused({ provider, event: error.event, code: error.code, issues }, started);
    return answerFor(error, this.config, request);
  }

  /** After the engine decided: runs a claimed delivery's route and answers with its result. */
  async drive(decision: Decision, request: HttpRequest): Promise<Decision> {
    if (decision.action !== 'run') return decision;
    const admitted = this.admitted.get(request);
    this.admitted.delete(request);
    const { run } = decision;
    const work = this.answer(decision, admitted);
    const expiry = run.expires
      ? new Promise<HttpResponseRecord>((resolve) => run.onExpire(resolve))
      : undefined;
    const response = await (expiry ? Promise.race([work, expiry]) : work);
    return { action: 'respond', response, replayed: false };
  }

  private async answer(
    { run, idempotency }: RunDecision,
    admitted: Admitted | undefined,
  ): Promise<HttpResponseRecord> {
    let value: unknown;
    try {
      // A run without an admission cannot happen (the check runs first); run nothing for it.
      value = admitted && (await run.enter(() => this.routing.run(admitted, idempotency)));
    } catch (error) {
      const answer = await run.abort(error);
      if (answer) return answer;
      throw error;
    }
    const response = answerOf(value);
    return (await run.finish(response)) ?? response;
  }
}

/**
 * The gate for `preset` when it is a route set, else `undefined`: its ignored events are counted
 * in `store`'s tally when the store keeps counts (a failed write is a `store-error` event).
 */
export function gateFor<Tx>(
  preset: ProviderPreset | undefined,
  tracer: Tracer,
  config: { readonly preset: ProviderPreset | undefined; readonly inProgressStatus: 409 | 503 },
  store: Store<Tx>,
): RouteGate | undefined {
  const routing = routingOf(preset);
  if (!routing) return undefined;
  const onTallyError = (error: unknown) => tracer.storeError('addIgnored', error, tracer.now());
  const tally = ignoredTallyOf(store, onTallyError);
  return new RouteGate(routing, tracer, config, tally, onTallyError);
}
