/**
 * @module When a storm's faults happen: each step (a server or database kill and its restart) is
 * due at a fraction of the finished deliveries and runs after the one before it; the last
 * deliveries are held until every step has begun, so that a slow restart cannot push a fault
 * past the last fresh delivery id. Shared by every storm target.
 */
import type { StormHold } from './client';
import type { Cluster } from './cluster';

/** A fault the storm injected. */
export interface InjectedFault {
  readonly what: string;
  /** Deliveries finished when it happened. */
  readonly atDelivery: number;
  /** Milliseconds the fault took (kill + restart until ready). */
  readonly tookMs: number;
}

/** One step: due at fraction `at` of the deliveries; calls `began` once it has begun. */
export interface FaultStep {
  readonly at: number;
  readonly what: string;
  run(began: () => void): Promise<void>;
}

/** When and how an app server is SIGKILLed: at once, or inside a handler after its effect. */
export interface ServerKill {
  readonly at: number;
  readonly slot: number;
  readonly how: 'now' | 'in-handler';
}

/**
 * A step per kill: the server SIGKILLed, then started again on its port. `began` is called once it
 * has begun (the kill inside a handler: once the server is told); `killedInHandler` collects the
 * id each in-handler kill landed in.
 */
export function serverKillSteps(
  cluster: Cluster,
  kills: readonly ServerKill[],
  killedInHandler: string[],
): FaultStep[] {
  return kills.map(({ at, slot, how }) => ({
    at,
    what: `SIGKILL server ${slot} ${how === 'now' ? 'at once' : 'inside a handler'} + restart`,
    run: async (began) => {
      if (how === 'now') {
        began();
        await cluster.kill(slot);
      } else killedInHandler.push(await cluster.killInHandler(slot, began));
      await cluster.restart(slot);
    },
  }));
}

/** The deliveries after the last step's fraction plus this share wait until every step has begun. */
const HOLD_AFTER_LAST_STEP = 0.15;

/** Progress of the client as a promise per threshold. */
function progressGate() {
  let finished = 0;
  let waiters: Array<{ at: number; wake: () => void }> = [];
  return {
    get finished() {
      return finished;
    },
    update(value: number) {
      finished = value;
      const due = waiters.filter((w) => w.at <= finished);
      waiters = waiters.filter((w) => w.at > finished);
      for (const w of due) w.wake();
    },
    reach(at: number): Promise<void> {
      if (finished >= at) return Promise.resolve();
      return new Promise((wake) => waiters.push({ at, wake }));
    },
  };
}

/** The running schedule of a storm's faults. */
export interface FaultSchedule {
  /** Pass to `sendStorm`: the deliveries held until every step has begun. */
  readonly hold: StormHold;
  /** The faults injected so far. */
  readonly faults: readonly InjectedFault[];
  /** Deliveries finished so far. */
  readonly finished: number;
  /** Pass to `sendStorm` as its progress callback. */
  progress(finished: number): void;
  /** The traffic is over: a step still waiting records nothing. Resolves once the steps have ended. */
  end(): Promise<void>;
  /** The error of a step that failed (a server that did not come back), if any. */
  readonly failure: { readonly error: unknown } | undefined;
}

/** Starts running `steps` (sorted by `at`) against a storm of `total` deliveries. */
export function scheduleFaults(steps: readonly FaultStep[], total: number): FaultSchedule {
  const sorted = [...steps].sort((a, b) => a.at - b.at);
  const gate = progressGate();
  const faults: InjectedFault[] = [];
  let trafficDone = false;
  let failure: { error: unknown } | undefined;
  let allBegun!: () => void;
  const hold: StormHold = {
    from: Math.floor(Math.min(1, (sorted.at(-1)?.at ?? 0) + HOLD_AFTER_LAST_STEP) * total),
    until: new Promise<void>((resolve) => (allBegun = resolve)),
  };
  const chaos = (async () => {
    let begun = 0;
    const began = () => {
      if (++begun === sorted.length) allBegun();
    };
    if (sorted.length === 0) allBegun();
    for (const step of sorted) {
      await gate.reach(Math.floor(step.at * total));
      if (trafficDone) return;
      const atDelivery = gate.finished;
      const started = Date.now();
      await step.run(began);
      faults.push({ what: step.what, atDelivery, tookMs: Date.now() - started });
    }
  })()
    .catch((error: unknown) => {
      failure = { error };
    })
    .finally(() => allBegun());
  return {
    hold,
    faults,
    get finished() {
      return gate.finished;
    },
    get failure() {
      return failure;
    },
    progress: (finished) => gate.update(finished),
    async end() {
      trafficDone = true;
      // Unblock any step still waiting (it then records nothing: the test sees the missing fault).
      gate.update(Number.MAX_SAFE_INTEGER);
      await chaos;
    },
  };
}
