/** @module The model-based property's delivery: a handler started on both sides, what the guard answered, and the receipts compared. */
import type fc from 'fast-check';
import {
  ClaimLost,
  FingerprintMismatch,
  RequestInProgress,
  type RequestKey,
  type Outcome,
  type RunContext,
} from '@webhook-idempotency/core';
import type { Decision } from './model';

import {
  KEYS,
  STALE_MS,
  idOf,
  type Ending,
  type Behaviour,
  HttpError,
  type ModelHeld,
  type PropertyModel,
  type Settled,
  type Running,
  type PropertyReal,
  settle,
  fail,
  same,
  describeError,
  errorText,
} from './property-base';

/** Starts a handler for `key` on the real side: checks the one-fresh-claim invariant, then behaves as told. */
export function startHandler(
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

export interface StartInfo {
  readonly context: RunContext<unknown>;
  readonly value: unknown;
  readonly release: (ending: Ending) => void;
}

/** Checks what the guard answered against what the model decided (for every decision but `run`). */
export function checkAnswer(
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
export async function checkStore(
  model: PropertyModel,
  real: PropertyReal,
  step: string,
): Promise<void> {
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
export async function checkEnding(
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
