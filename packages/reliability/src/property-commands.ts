/**
 * @module The model-based property: fast-check commands that drive the real `IdempotencyGuard`
 * over a real store and the {@link ReceiptModel} side by side, comparing them after every step.
 */
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import {
  ClaimLost,
  DAY,
  FingerprintMismatch,
  IdempotencyGuard,
  RequestInProgress,
  RequestKey,
  type Outcome,
  type RunContext,
  type Store,
} from '@webhook-idempotency/core';
import { ReceiptModel, type Decision } from './model';
import type { VirtualClock } from './property-clock';

/** The keys deliveries use: the same external id at two providers is two events. */
export const KEYS: readonly RequestKey[] = [
  new RequestKey('stripe', 'evt_1'),
  new RequestKey('stripe', 'evt_2'),
  new RequestKey('github', 'evt_1'),
];
/** Request fingerprints: two bodies, and a request without a body (`null`). */
export const FINGERPRINTS: readonly (string | null)[] = ['fp-a', 'fp-b', null];
/** The guard's stale threshold in the property. */
export const STALE_AFTER_SECONDS = 60;
const STALE_MS = STALE_AFTER_SECONDS * 1000;
/** Clock jumps: around the stale threshold (both sides of it) and around purge cut-offs. */
export const CLOCK_JUMPS_MS: readonly number[] = [
  1,
  1_000,
  STALE_MS - 1,
  STALE_MS,
  STALE_MS + 1_000,
  DAY,
  31 * DAY,
];
/** Where every run's clock starts. */
export const START_MS = Date.UTC(2026, 0, 1);

const idOf = (key: RequestKey) => `${key.provider}/${key.externalId}`;

/** How a handler ends. `http-error` is a non-2xx answer: at the guard's level, a throw. */
export type Ending = 'return' | 'throw' | 'http-error';
/** What a handler of a delivery does: end now, or `hold` (not settle within the step; a later step settles it). */
export type Behaviour = Ending | 'hold';

/** A handler's non-2xx answer, as an HTTP adapter turns it into a throw. */
export class HttpError extends Error {
  readonly status: number;
  constructor(status: number) {
    super(`answered ${status}`);
    this.name = 'HttpError';
    this.status = status;
  }
}

/** A held run as the model knows it. */
interface ModelHeld {
  readonly key: string;
  readonly claim: number;
  readonly attempts: number;
}

/** The model side of a run. */
export interface PropertyModel {
  readonly ref: ReceiptModel;
  /** Handlers that started and have not settled, oldest first (parallel to {@link PropertyReal.held}). */
  readonly held: ModelHeld[];
}

type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

/** A handler that is running, as the real side saw it start. */
interface Running {
  readonly key: string;
  readonly attempts: number;
  readonly startedAt: number;
}

/** A held run on the real side: release it to let its handler end. */
interface RealHeld {
  readonly key: string;
  /** What the handler returns when released with `'return'`. */
  readonly value: unknown;
  readonly release: (ending: Ending) => unknown;
  readonly outcome: Promise<Settled<Outcome<unknown>>>;
}

/** The real side of a run: the guard over the store under test, on the virtual clock. */
export interface PropertyReal {
  readonly guard: IdempotencyGuard<unknown, unknown>;
  readonly store: Store<unknown>;
  readonly clock: VirtualClock;
  readonly held: RealHeld[];
  /** Handlers started and not yet settled. */
  readonly running: Running[];
  /** Invariant breaks seen inside handlers (thrown at the end of the step that caused them). */
  readonly violations: string[];
  /** Handler starts, to give every returned value its own identity. */
  runs: number;
  /** Counts one more occurrence of a lifecycle path (coverage of the interleavings). */
  readonly tally: (path: string) => void;
}

function settle<T>(promise: Promise<T>): Promise<Settled<T>> {
  return promise.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
}

function fail(message: string): never {
  throw new Error(message);
}

function same(actual: unknown, expected: unknown, what: string): void {
  if (!isDeepStrictEqual(actual, expected))
    fail(`${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
}

const describeError = (error: unknown) =>
  error instanceof Error ? `${error.name}: ${error.message}` : String(error);

/** The error text a failed receipt must carry for `error` (the guard's format: name, message, no stack). */
const errorText = (error: Error) => `${error.name}: ${error.message}`;

/** Starts a handler for `key` on the real side: checks the one-fresh-claim invariant, then behaves as told. */
function startHandler(
  real: PropertyReal,
  key: string,
  behaviour: Behaviour | 'yield',
  started: (info: StartInfo) => void,
) {
  return async (context: RunContext<unknown>): Promise<unknown> => {
    const run = ++real.runs;
    const now = real.clock.now;
    for (const other of real.running) {
      if (other.key === key && now - other.startedAt < STALE_MS) {
        real.violations.push(
          `two handlers run on ${key} with fresh claims: attempts ${other.attempts} (started ${now - other.startedAt} ms ago) and attempts ${context.attempts}`,
        );
      }
    }
    const self: Running = { key, attempts: context.attempts, startedAt: now };
    real.running.push(self);
    const value = { key, run, note: 'ü €' };
    let ending: Ending = behaviour === 'hold' || behaviour === 'yield' ? 'return' : behaviour;
    try {
      if (behaviour === 'hold') {
        ending = await new Promise<Ending>((resolve) =>
          started({ context, value, release: resolve }),
        );
      } else {
        started({ context, value, release: () => undefined });
        // A burst's handlers yield so the other deliveries of the burst run meanwhile.
        if (behaviour === 'yield')
          for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
      }
      if (ending === 'throw') throw new Error(`handler of ${key} run ${run} threw`);
      if (ending === 'http-error') throw new HttpError(500);
      return value;
    } finally {
      real.running.splice(real.running.indexOf(self), 1);
    }
  };
}

interface StartInfo {
  readonly context: RunContext<unknown>;
  readonly value: unknown;
  readonly release: (ending: Ending) => void;
}

/** Checks what the guard answered against what the model decided (for every decision but `run`). */
function checkAnswer(
  real: PropertyReal,
  decision: Exclude<Decision, { kind: 'run' }>,
  settled: Settled<Outcome<unknown>>,
  what: string,
): void {
  real.tally(decision.kind);
  if (decision.kind === 'replay') {
    if (!settled.ok) fail(`${what}: expected a replay, got ${describeError(settled.error)}`);
    same(settled.value.isReplay, true, `${what}: isReplay`);
    same(settled.value.attempts, decision.attempts, `${what}: replayed attempts`);
    same(settled.value.response, decision.value, `${what}: replayed value`);
    return;
  }
  if (settled.ok)
    fail(`${what}: expected ${decision.kind}, got an outcome ${JSON.stringify(settled.value)}`);
  if (decision.kind === 'mismatch') {
    if (!(settled.error instanceof FingerprintMismatch))
      fail(`${what}: expected FingerprintMismatch, got ${describeError(settled.error)}`);
    return;
  }
  if (!(settled.error instanceof RequestInProgress))
    fail(`${what}: expected RequestInProgress, got ${describeError(settled.error)}`);
  same(settled.error.retryAfterSeconds, decision.retryAfterSeconds, `${what}: retryAfterSeconds`);
}

/** Compares every key's stored receipt with the model's. */
async function checkStore(model: PropertyModel, real: PropertyReal, step: string): Promise<void> {
  if (real.violations.length > 0) fail(`${step}: ${real.violations.join('; ')}`);
  for (const key of KEYS) {
    const id = idOf(key);
    const expected = model.ref.receipt(id);
    const actual = await real.store.find(key, { now: real.clock.now });
    const what = `${step}: receipt ${id}`;
    if (!expected) {
      if (actual !== null) fail(`${what}: expected none, got ${JSON.stringify(actual)}`);
      continue;
    }
    if (!actual) fail(`${what}: expected ${JSON.stringify(expected)}, got none`);
    same(
      {
        status: actual.status,
        attempts: actual.attempts,
        fingerprint: actual.fingerprint,
        response: actual.response,
        error: actual.error,
        claimedAt: actual.claimedAt.getTime(),
        finishedAt: actual.finishedAt?.getTime() ?? null,
        claimAgeMs: actual.claimAgeMs,
      },
      {
        status: expected.status,
        attempts: expected.attempts,
        fingerprint: expected.fingerprint,
        response: expected.status === 'completed' ? JSON.stringify(expected.value) : null,
        error: expected.error,
        claimedAt: expected.claimedAt,
        finishedAt: expected.finishedAt,
        claimAgeMs: model.ref.now - expected.claimedAt,
      },
      what,
    );
  }
}

/** One delivery: the handler returns, throws, answers non-2xx, or is held open past the step. */
export class DeliverCommand implements fc.AsyncCommand<PropertyModel, PropertyReal> {
  constructor(
    readonly key: RequestKey,
    readonly fingerprint: string | null,
    readonly verified: boolean,
    readonly behaviour: Behaviour,
  ) {}

  check(): boolean {
    return true;
  }

  async run(model: PropertyModel, real: PropertyReal): Promise<void> {
    const id = idOf(this.key);
    const what = `deliver ${this.toString()}`;
    const before = model.ref.receipt(id);
    const decision = model.ref.deliver({
      key: id,
      fingerprint: this.fingerprint,
      verified: this.verified,
    });
    real.tally(
      decision.kind !== 'run'
        ? `deliver: ${decision.kind}`
        : before
          ? `deliver: takeover of a ${before.status} receipt`
          : 'deliver: first claim',
    );
    if (decision.kind === 'mismatch' && this.fingerprint === null)
      real.tally('deliver: body-less request refused');
    if (decision.kind === 'replay' && this.fingerprint === null && before?.fingerprint)
      real.tally('deliver: verified body-less request replayed');
    if (
      decision.kind === 'run' &&
      before?.status === 'failed' &&
      before.fingerprint !== this.fingerprint
    )
      real.tally('deliver: failed receipt retaken with another fingerprint');
    let info: StartInfo | undefined;
    let signalStart!: () => void;
    const startedSignal = new Promise<'started'>(
      (resolve) => (signalStart = () => resolve('started')),
    );
    const handler = startHandler(real, id, this.behaviour, (started) => {
      if (info) real.violations.push(`${what}: the handler started twice in one delivery`);
      info = started;
      signalStart();
    });
    const outcome = settle(
      real.guard.run(this.key, handler, { fingerprint: this.fingerprint, verified: this.verified }),
    );
    const first = await Promise.race([outcome, startedSignal]);

    if (decision.kind !== 'run') {
      const settled = first === 'started' ? await outcome : first;
      if (info) fail(`${what}: the handler ran, but the model expected ${decision.kind}`);
      checkAnswer(real, decision, settled, what);
      return checkStore(model, real, what);
    }
    if (!info) {
      const settled = first === 'started' ? await outcome : first;
      fail(
        `${what}: expected the handler to run (attempts ${decision.attempts}), got ${settled.ok ? JSON.stringify(settled.value) : describeError(settled.error)}`,
      );
    }
    same(
      { attempts: info.context.attempts, isRetry: info.context.isRetry },
      { attempts: decision.attempts, isRetry: decision.isRetry },
      `${what}: handler context`,
    );
    if (this.behaviour === 'hold') {
      model.held.push({ key: id, claim: decision.claim, attempts: decision.attempts });
      real.held.push({ key: id, value: info.value, release: info.release, outcome });
      return checkStore(model, real, what);
    }
    await checkEnding(
      model,
      real,
      { key: id, claim: decision.claim, attempts: decision.attempts },
      this.behaviour,
      info.value,
      await outcome,
      what,
    );
  }

  toString(): string {
    return `${idOf(this.key)} fp=${this.fingerprint} ${this.verified ? 'verified ' : ''}${this.behaviour}`;
  }
}

/** What a run that started its handler must end in, given how the handler ended and whether its claim is still live. */
async function checkEnding(
  model: PropertyModel,
  real: PropertyReal,
  held: ModelHeld,
  ending: Ending,
  value: unknown,
  settled: Settled<Outcome<unknown>>,
  what: string,
): Promise<void> {
  if (ending === 'return') {
    if (model.ref.complete(held.key, held.claim, value)) {
      real.tally('handler returned: completed');
      if (!settled.ok)
        fail(`${what}: expected the handler's value, got ${describeError(settled.error)}`);
      same(
        settled.value,
        { response: value, isReplay: false, attempts: held.attempts },
        `${what}: outcome`,
      );
    } else {
      // The claim was taken over: the late completion must be refused and reported.
      real.tally('late completion refused (ClaimLost)');
      if (settled.ok) {
        const now = model.ref.receipt(held.key);
        const how =
          now?.attempts === held.attempts
            ? 'whose receipt was purged and claimed anew with the same attempts (a reused fencing token)'
            : `that lost its claim to a takeover (now attempts ${now?.attempts ?? 'none'})`;
        fail(
          `${what}: a completion by a worker ${how} was accepted: ${JSON.stringify(settled.value)}`,
        );
      }
      if (!(settled.error instanceof ClaimLost))
        fail(`${what}: expected ClaimLost, got ${describeError(settled.error)}`);
      same(settled.error.attempts, held.attempts, `${what}: ClaimLost.attempts`);
    }
  } else {
    if (settled.ok)
      fail(
        `${what}: the handler threw, but the run resolved with ${JSON.stringify(settled.value)}`,
      );
    const error = settled.error;
    const expectedName = ending === 'throw' ? 'Error' : 'HttpError';
    if (!(error instanceof Error) || error.name !== expectedName)
      fail(`${what}: expected the handler's own error to be rethrown, got ${describeError(error)}`);
    // Failing is fenced too: a worker that lost its claim leaves the receipt alone.
    real.tally(
      model.ref.fail(held.key, held.claim, errorText(error))
        ? 'handler threw: failed'
        : 'late failure refused',
    );
  }
  await checkStore(model, real, what);
}

/** Lets one held handler end now: its claim may have been taken over (and the receipt even purged and claimed anew). */
export class SettleCommand implements fc.AsyncCommand<PropertyModel, PropertyReal> {
  constructor(
    readonly index: number,
    readonly ending: Ending,
  ) {}

  check(model: Readonly<PropertyModel>): boolean {
    return model.held.length > 0;
  }

  async run(model: PropertyModel, real: PropertyReal): Promise<void> {
    const at = this.index % model.held.length;
    const [held] = model.held.splice(at, 1);
    const [realHeld] = real.held.splice(at, 1);
    if (!held || !realHeld) fail('settle: the model and the real side disagree on the held runs');
    const what = `settle ${held.key} attempts ${held.attempts} with ${this.ending}`;
    realHeld.release(this.ending);
    await checkEnding(model, real, held, this.ending, realHeld.value, await realHeld.outcome, what);
  }

  toString(): string {
    return `settle #${this.index} ${this.ending}`;
  }
}

/** The clock jumps forward. */
export class AdvanceClockCommand implements fc.AsyncCommand<PropertyModel, PropertyReal> {
  constructor(readonly ms: number) {}

  check(): boolean {
    return true;
  }

  async run(model: PropertyModel, real: PropertyReal): Promise<void> {
    model.ref.advance(this.ms);
    real.clock.now += this.ms;
    await checkStore(model, real, `advance ${this.ms} ms`);
  }

  toString(): string {
    return `advance ${this.ms} ms`;
  }
}

/** `guard.purge`: deletes only finished receipts older than the cut-off. */
export class PurgeCommand implements fc.AsyncCommand<PropertyModel, PropertyReal> {
  constructor(
    readonly retentionDays: number,
    readonly provider: string | undefined,
  ) {}

  check(): boolean {
    return true;
  }

  async run(model: PropertyModel, real: PropertyReal): Promise<void> {
    const deleted = model.ref.purge(
      this.retentionDays * DAY,
      (key) => this.provider === undefined || key.startsWith(`${this.provider}/`),
    );
    const count = await real.guard.purge({
      retentionDays: this.retentionDays,
      ...(this.provider ? { provider: this.provider } : {}),
    });
    if (deleted.length > 0) real.tally('purge deleted receipts');
    same(
      count,
      deleted.length,
      `${this.toString()}: deleted count (model deletes ${deleted.join(', ') || 'nothing'})`,
    );
    await checkStore(model, real, this.toString());
  }

  toString(): string {
    return `purge ${this.retentionDays} days${this.provider ? ` of ${this.provider}` : ''}`;
  }
}

/** Several identical deliveries of one key at the same moment: the store's atomicity decides. */
export class BurstCommand implements fc.AsyncCommand<PropertyModel, PropertyReal> {
  constructor(
    readonly key: RequestKey,
    readonly fingerprint: string | null,
    readonly verified: boolean,
    readonly size: number,
  ) {}

  check(): boolean {
    return true;
  }

  async run(model: PropertyModel, real: PropertyReal): Promise<void> {
    const id = idOf(this.key);
    const what = `burst ${this.toString()}`;
    const decision = model.ref.deliver({
      key: id,
      fingerprint: this.fingerprint,
      verified: this.verified,
    });
    const starts: StartInfo[] = [];
    const outcomes = await Promise.all(
      Array.from({ length: this.size }, () =>
        settle(
          real.guard.run(
            this.key,
            startHandler(real, id, 'yield', (info) => starts.push(info)),
            {
              fingerprint: this.fingerprint,
              verified: this.verified,
            },
          ),
        ),
      ),
    );
    if (decision.kind !== 'run') {
      if (starts.length > 0)
        fail(`${what}: ${starts.length} handler(s) ran, but the model expected ${decision.kind}`);
      for (const [i, settled] of outcomes.entries())
        checkAnswer(real, decision, settled, `${what} #${i}`);
      return checkStore(model, real, what);
    }
    if (starts.length !== 1)
      fail(`${what}: expected exactly one handler to run, ${starts.length} ran`);
    real.tally('burst: one handler ran');
    const [winner] = starts as [StartInfo];
    same(
      { attempts: winner.context.attempts, isRetry: winner.context.isRetry },
      { attempts: decision.attempts, isRetry: decision.isRetry },
      `${what}: handler context`,
    );
    if (!model.ref.complete(id, decision.claim, winner.value))
      fail(`${what}: the model refused its own completion`);
    let won = 0;
    outcomes.forEach((settled, i) => {
      const label = `${what} #${i}`;
      if (settled.ok && !settled.value.isReplay) {
        won++;
        same(
          settled.value,
          { response: winner.value, isReplay: false, attempts: decision.attempts },
          `${label}: outcome`,
        );
      } else if (settled.ok) {
        same(
          settled.value,
          { response: winner.value, isReplay: true, attempts: decision.attempts },
          `${label}: replay of the winner`,
        );
      } else {
        if (!(settled.error instanceof RequestInProgress))
          fail(
            `${label}: expected the winner's value, a replay or RequestInProgress, got ${describeError(settled.error)}`,
          );
        same(settled.error.retryAfterSeconds, STALE_AFTER_SECONDS, `${label}: retryAfterSeconds`);
      }
    });
    same(won, 1, `${what}: first-hand outcomes`);
    await checkStore(model, real, what);
  }

  toString(): string {
    return `${idOf(this.key)} fp=${this.fingerprint} ${this.verified ? 'verified ' : ''}x${this.size}`;
  }
}

/** Every command, weighted towards deliveries. */
export function commandArbitraries(): fc.Arbitrary<fc.AsyncCommand<PropertyModel, PropertyReal>>[] {
  // Weighted towards one key and one body, so that deliveries collide (takeovers, late owners) often.
  const key = fc.oneof(
    ...KEYS.map((k, i) => ({ arbitrary: fc.constant(k), weight: i === 0 ? 4 : 1 })),
  );
  const fingerprint = fc.oneof(
    ...FINGERPRINTS.map((f, i) => ({ arbitrary: fc.constant(f), weight: i === 0 ? 3 : 1 })),
  );
  const ending = fc.constantFrom<Ending>('return', 'throw', 'http-error');
  const deliver = fc
    .tuple(
      key,
      fingerprint,
      fc.boolean(),
      fc.constantFrom<Behaviour>('return', 'return', 'throw', 'http-error', 'hold', 'hold', 'hold'),
    )
    .map(([k, f, v, b]) => new DeliverCommand(k, f, v, b));
  // Index 0 (the oldest held run) half the time: the late owner whose claim was taken over.
  const settle = fc
    .tuple(fc.oneof(fc.constant(0), fc.nat(7)), ending)
    .map(([i, e]) => new SettleCommand(i, e));
  const advance = fc.constantFrom(...CLOCK_JUMPS_MS).map((ms) => new AdvanceClockCommand(ms));
  return [
    deliver,
    deliver,
    deliver,
    settle,
    advance,
    advance,
    fc
      .tuple(fc.constantFrom(0, 1, 30), fc.constantFrom(undefined, 'stripe', 'github'))
      .map(([d, p]) => new PurgeCommand(d, p)),
    fc
      .tuple(key, fingerprint, fc.boolean(), fc.integer({ min: 2, max: 4 }))
      .map(([k, f, v, n]) => new BurstCommand(k, f, v, n)),
  ];
}

/** What the property runs against. */
export interface PropertyTarget {
  readonly name: string;
  /**
   * A store with no receipts whose "now" is `clock.now`: a `'caller'`-clock store gets it from the
   * guard; a `'store'`-clock store must be wired to it by the target. Called once per interleaving.
   */
  store(clock: VirtualClock): Promise<Store<unknown>>;
}

/** What the interleavings covered. */
export interface InterleavingCounter {
  /** Interleavings run (shrinking included). */
  runs: number;
  /** Commands run. */
  commands: number;
  /** Occurrences of each lifecycle path. */
  readonly paths: Record<string, number>;
}

/** Options of {@link interleavingProperty}. */
export interface InterleavingOptions {
  /** Longest command sequence of one interleaving. */
  readonly maxCommands: number;
  /** Counts the interleavings actually run (shrinking included). */
  readonly counter?: InterleavingCounter;
}

/**
 * The property: for any sequence of commands, the real guard over `target`'s store answers every
 * delivery, settles every late handler and purges exactly as the {@link ReceiptModel} says, and
 * the stored receipts equal the model's after every step.
 */
export function interleavingProperty(target: PropertyTarget, options: InterleavingOptions) {
  return fc.asyncProperty(
    fc.commands(commandArbitraries(), { maxCommands: options.maxCommands, size: 'max' }),
    (commands) => runCommands(target, countCommands(commands, options.counter), options.counter),
  );
}

/**
 * Runs one interleaving: a fresh store from `target`, the guard on a virtual clock, and `commands`
 * against the model. Also how a fixed scenario (a shrunk counterexample) is replayed by name.
 * @throws the first disagreement between the guard and the model.
 */
export async function runCommands(
  target: PropertyTarget,
  commands: Iterable<fc.AsyncCommand<PropertyModel, PropertyReal>>,
  counter?: InterleavingCounter,
): Promise<void> {
  const clock: VirtualClock = { now: START_MS };
  const store = await target.store(clock);
  const real: PropertyReal = {
    guard: new IdempotencyGuard(store, {
      staleAfterSeconds: STALE_AFTER_SECONDS,
      clock: () => clock.now,
    }),
    store,
    clock,
    held: [],
    running: [],
    violations: [],
    runs: 0,
    tally: (path) => {
      if (counter) counter.paths[path] = (counter.paths[path] ?? 0) + 1;
    },
  };
  const model: PropertyModel = {
    ref: new ReceiptModel({ now: START_MS, staleAfterMs: STALE_MS }),
    held: [],
  };
  if (counter) counter.runs++;
  try {
    await fc.asyncModelRun(() => ({ model, real }), commands);
  } finally {
    // Let every held handler end, so none writes into the next interleaving's store.
    for (const held of real.held.splice(0)) {
      held.release('throw');
      await held.outcome;
    }
  }
}

function* countCommands<C>(
  commands: Iterable<C>,
  counter: { commands: number } | undefined,
): Iterable<C> {
  for (const command of commands) {
    if (counter) counter.commands++;
    yield command;
  }
}
