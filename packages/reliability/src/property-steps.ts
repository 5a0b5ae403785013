/** @module The model-based property's other commands: a held handler settles, the clock jumps, a purge, a burst of identical deliveries. */
import type fc from 'fast-check';
import { DAY, RequestInProgress, type RequestKey } from '@webhook-idempotency/core';

import {
  STALE_AFTER_SECONDS,
  idOf,
  type Ending,
  type PropertyModel,
  type PropertyReal,
  settle,
  fail,
  same,
  describeError,
} from './property-base';
import {
  startHandler,
  type StartInfo,
  checkAnswer,
  checkEnding,
  checkStore,
} from './property-deliver';

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
