/** @module One test's world: a fresh store and guard, the app under test, a counting handler, a raw-bytes client. */
import type { AddressInfo } from 'node:net';
import { caseOptions, guardWorld, PROVIDER } from './guard-world';
import type {
  IdempotencyGuard,
  GuardEvent,
  IdempotencyOptions,
  ObservedReceipt,
  Store,
} from '@webhook-idempotency/core';
import request from 'supertest';
import type {
  AdapterCapabilities,
  AdapterEntry,
  Answer,
  HandlerCall,
  NativeLike,
  Observed,
  RunningApp,
} from './types';

export { PROVIDER } from './guard-world';

/** A JSON body with unusual spacing: a re-serialisation would not reproduce these bytes. */
export const BODY = '{"id":"evt_1",  "amount": 10}';

/** A promise with its resolver, to hold a handler until the test lets it go. */
export interface Gate {
  readonly promise: Promise<void>;
  open(): void;
}

/** A closed {@link Gate}. */
export function gate(): Gate {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

/** The suite's handler: gets the call and its 1-based number (how many times the handler has started). */
export type CaseHandler = (call: HandlerCall, n: number) => Answer | Promise<Answer>;

/** What a case works with. */
export interface Harness {
  readonly store: Store<unknown>;
  readonly guard: IdempotencyGuard<unknown>;
  readonly capabilities: AdapterCapabilities;
  /** How many times the handler has started. */
  calls(): number;
  /** How many claims the guard has made (a receipt written, whatever its key). */
  claims(): number;
  /**
   * Starts the app. `options` are merged over `{ guard, provider, key: X-Event-Id header,
   * keyDescription: 'X-Event-Id header' }` (naming `store` replaces the guard).
   */
  start(
    options?: Partial<IdempotencyOptions<NativeLike>>,
    handler?: CaseHandler,
  ): Promise<RunningApp>;
  /**
   * POSTs `body` to /hook (or `path`, /hook with a query) with `X-Event-Id: id` (no header when
   * `id` is undefined); `res.body` is a Buffer.
   */
  post(
    id: string | undefined,
    body?: string,
    headers?: Record<string, string>,
    path?: string,
  ): request.Test;
  /**
   * GETs /hook with `query` and `headers` (a preset's handshake: Meta's `hub.challenge`, Okta's
   * challenge header); `res.body` is a Buffer.
   */
  get(query: string, headers?: Readonly<Record<string, string>>): request.Test;
  /** The receipt of `id`, read through the guard. */
  receipt(id: string): Promise<ObservedReceipt | null>;
  /** Resolves, once the app has reported `count` answered requests, with every report so far, in order. */
  observed(count: number): Promise<readonly Observed[]>;
  /** Resolves once `count` events of `type` have been emitted by the guard. */
  events(type: GuardEvent['type'], count?: number): Promise<void>;
  /** The port the app listens on. */
  port(): number;
}

/** The default answer: JSON naming the event and the call number. */
export const jsonAnswer: CaseHandler = (call, n) => ({
  kind: 'json',
  value: { received: call.headers['x-event-id'], call: n },
});

function rawParser(
  res: request.Response,
  callback: (error: Error | null, body: Buffer) => void,
): void {
  const chunks: Buffer[] = [];
  const stream = res as unknown as NodeJS.ReadableStream;
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  stream.on('end', () => callback(null, Buffer.concat(chunks)));
  stream.on('error', (error: Error) => callback(error, Buffer.alloc(0)));
}

/**
 * `options` with every callback that gets the native request wrapped to get `view(native)`
 * instead (see {@link AdapterEntry.nativeLike}); `options` unchanged without a view.
 */
export function viewedThrough(
  options: IdempotencyOptions<NativeLike>,
  view: ((native: never) => NativeLike) | undefined,
): IdempotencyOptions<NativeLike> {
  if (!view) return options;
  const see = view as (native: unknown) => NativeLike;
  const { key, provider, verify, fingerprint } = options;
  const viewed: IdempotencyOptions<unknown> = { ...(options as IdempotencyOptions<unknown>) };
  if (key) viewed.key = (native) => key(see(native));
  if (typeof provider === 'function') viewed.provider = (native) => provider(see(native));
  if (verify) viewed.verify = (native, rawBody) => verify(see(native), rawBody);
  if (typeof fingerprint === 'function')
    viewed.fingerprint = (request) => fingerprint({ ...request, native: see(request.native) });
  // The adapter under test gets callbacks of its own native request: typed as the suite's for the entry.
  return viewed as IdempotencyOptions<NativeLike>;
}

/** What a harness holds whatever serves the app: the parts of {@link Harness} that read the guard's world. */
type WorldParts = Pick<
  Harness,
  'store' | 'guard' | 'capabilities' | 'calls' | 'claims' | 'receipt' | 'observed' | 'events'
>;

/**
 * The guard's world on `store` for an entry with `capabilities` and `nativeLike`: the harness parts
 * that read it, and `appOf(options, handler)`, the arguments its app is built with (the case's
 * options seen through the entry's native view, the handler counting its calls, the reporter).
 */
export function harnessWorld(
  store: Store<unknown>,
  { capabilities, nativeLike }: Pick<AdapterEntry, 'capabilities' | 'nativeLike'>,
) {
  const world = guardWorld(store);
  const { guard } = world;
  let count = 0;
  const parts: WorldParts = {
    store,
    guard,
    capabilities,
    calls: () => count,
    claims: world.claims,
    receipt: (id) => guard.find({ provider: PROVIDER, externalId: id }),
    observed: world.observed,
    events: world.events,
  };
  const appOf = (options: Partial<IdempotencyOptions<NativeLike>>, handler: CaseHandler) =>
    [
      viewedThrough(caseOptions(guard, options), nativeLike),
      async (call: HandlerCall) => handler(call, ++count),
      world.observe,
    ] as const;
  return { parts, appOf };
}

/** Builds a harness on `store` for `entry`; `cleanup` collects what to close after the test. */
export function createHarness(
  entry: AdapterEntry,
  store: Store<unknown>,
  cleanup: Array<() => Promise<void>>,
): Harness {
  const { parts, appOf } = harnessWorld(store, entry);
  let app: RunningApp | undefined;

  return {
    ...parts,
    async start(options = {}, handler = jsonAnswer) {
      app = await entry.start(...appOf(options, handler));
      cleanup.push(app.close);
      return app;
    },
    post(id, body = BODY, headers = {}, path = '/hook') {
      if (!app) throw new Error('start() the app first');
      const test = request(app.server)
        .post(path)
        .set('content-type', 'application/json')
        .set(headers);
      if (id !== undefined) test.set('x-event-id', id);
      return test.buffer(true).parse(rawParser).send(body);
    },
    get(query, headers = {}) {
      if (!app) throw new Error('start() the app first');
      return request(app.server)
        .get(`/hook?${query}`)
        .set({ ...headers })
        .buffer(true)
        .parse(rawParser);
    },
    port() {
      if (!app) throw new Error('start() the app first');
      return (app.server.address() as AddressInfo).port;
    },
  };
}
