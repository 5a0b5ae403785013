/**
 * @module The state machine the inbox's polling parts share (the worker, the relay): one state
 * field ({@link LoopState}) and one loop ({@link PollLoop}) that runs rounds while it reads
 * `running`, with a nap between two rounds that a stop cuts short.
 *
 * ```text
 *   idle ──start()──▶ running ──stop()──▶ stopping ──stop() resolves──▶ stopped
 *                        ▲                   │                            │
 *                        └───── start() ─────┴────────────────────────────┘
 *   runOnce() from stopping or stopped: idle again (what it takes runs).
 * ```
 *
 * The loop also holds the signal of the runs its owner starts ({@link PollLoop.runSignal}): a stop
 * past its deadline aborts it ({@link PollLoop.endRuns}), and the next `start()` or `runOnce()`
 * ({@link PollLoop.rest}) gets a new one, so what runs after a stop is not ended at once.
 *
 * A round is the owner's: one lease call of the worker (or one lease call and send of the relay), resolving
 * with how long to nap before the next; `Infinity` naps until {@link PollLoop.wake} (the worker
 * when every lane is busy: a lane that frees up wakes it). A stop ends the nap at once and waits
 * for the round under way ({@link PollLoop.halt}); one loop runs at a time, so a `start()` while a
 * stopped loop's round is still under way lets that loop carry on instead of starting another.
 */
import { numberOption } from './run';

/** Where a polling machine is. */
export const LoopState = {
  /** Built, or used by `runOnce()`: no loop; what it takes runs. */
  IDLE: 'idle',
  /** The loop leases round after round. */
  RUNNING: 'running',
  /** `stop()` is under way: nothing new starts, what has not started is given back. */
  STOPPING: 'stopping',
  /** `stop()` has resolved: what a round still under way takes is given back. */
  STOPPED: 'stopped',
} as const;
/** One of {@link LoopState}. */
export type LoopState = (typeof LoopState)[keyof typeof LoopState];

/** A nap that ends only on {@link PollLoop.wake} (or a stop). */
export const UNTIL_WOKEN = Number.POSITIVE_INFINITY;

/** One state field and one loop of rounds; see the module's header. */
export class PollLoop {
  private current: LoopState = LoopState.IDLE;
  /** The loop while it runs: one at a time. */
  private loop: Promise<void> | undefined;
  /** The round under way, for a stop to wait on. */
  private round: Promise<number> | undefined;
  /** Ends the nap under way, and whether a wake may end it. */
  private nap: { readonly end: () => void; readonly wakeable: boolean } | undefined;
  /** A wake came since the last round began. */
  private woken = false;
  /** The runs' signal: aborted by {@link PollLoop.endRuns}, replaced by the next start or rest. */
  private runs = new AbortController();

  /** @param next one round; resolves (never rejects) with the milliseconds to nap before the next. */
  constructor(private readonly next: () => Promise<number>) {}

  get state(): LoopState {
    return this.current;
  }

  /** Stopping or stopped: nothing new starts, and what is taken is given back. */
  get halting(): boolean {
    return this.current === LoopState.STOPPING || this.current === LoopState.STOPPED;
  }

  /** What the owner's runs heed: aborted when a stop ends them, new after that stop. */
  get runSignal(): AbortSignal {
    return this.runs.signal;
  }

  /** A stop past its deadline: the runs still going end (and give their work back). */
  endRuns(reason: unknown): void {
    this.runs.abort(reason);
  }

  /** Runs the loop, its first round after a nap of 0; a loop still ending carries on instead. */
  start(): void {
    if (this.current === LoopState.RUNNING) return;
    this.freshRuns();
    this.current = LoopState.RUNNING;
    this.loop ??= this.run();
  }

  /** Stopping: ends the nap under way; resolves with the round under way, if any. */
  halt(): Promise<number> | undefined {
    this.current = LoopState.STOPPING;
    this.nap?.end();
    return this.round;
  }

  /** The stop is over: stopped, unless started again meanwhile. */
  halted(): void {
    if (this.current === LoopState.STOPPING) this.current = LoopState.STOPPED;
  }

  /** `runOnce()`: a stopping or stopped machine runs what it takes again. */
  rest(): void {
    this.freshRuns();
    if (this.current !== LoopState.RUNNING) this.current = LoopState.IDLE;
  }

  /** After a stop that ended the runs still going: a new signal, so that what runs next can run. */
  private freshRuns(): void {
    if (this.runs.signal.aborted) this.runs = new AbortController();
  }

  /** Ends a nap of {@link UNTIL_WOKEN}, or the next one if the round under way asks for it. */
  wake(): void {
    this.woken = true;
    if (this.nap?.wakeable) this.nap.end();
  }

  /** The loop: nap, then a round, while running. */
  private async run(): Promise<void> {
    try {
      let napMs = 0;
      for (;;) {
        await this.sleep(napMs);
        if (this.current !== LoopState.RUNNING) return;
        this.woken = false;
        this.round = this.next();
        napMs = await this.round;
        this.round = undefined;
      }
    } finally {
      this.loop = undefined;
    }
  }

  /** Resolves after `ms`, at once when not running, and for {@link UNTIL_WOKEN} on a wake. */
  private sleep(ms: number): Promise<void> {
    const wakeable = ms === UNTIL_WOKEN;
    if (this.current !== LoopState.RUNNING || (wakeable && this.woken)) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = wakeable ? undefined : setTimeout(() => end(), ms);
      const end = () => {
        clearTimeout(timer);
        this.nap = undefined;
        resolve();
      };
      this.nap = { end, wakeable };
    });
  }
}

/**
 * What the polling parts' machines (the worker, the relay, the outbox dispatcher) share: the
 * loop of their rounds, its state, `start()`, and a `stop()` that checks its timeout, stops as the
 * part does ({@link PollingMachine.stopWithin}) and then reads `stopped`.
 */
export abstract class PollingMachine {
  protected readonly loop = new PollLoop(() => this.round());

  /** @param stopTimeoutMs what `stop()` waits at most when not told. */
  constructor(private readonly stopTimeoutMs: number) {}

  get state(): LoopState {
    return this.loop.state;
  }

  start(): void {
    this.loop.start();
  }

  async stop({ timeoutMs = this.stopTimeoutMs }: { timeoutMs?: number } = {}): Promise<void> {
    await this.stopWithin(numberOption('timeoutMs', timeoutMs, 0));
    this.loop.halted();
  }

  /** One round of the loop; resolves (never rejects) with the milliseconds to nap before the next. */
  protected abstract round(): Promise<number>;

  /** Halts the loop and ends what is under way within `ms` (and the part's grace). */
  protected abstract stopWithin(ms: number): Promise<void>;
}

/** What a polling part's machine offers its handle: its state, and the three calls of the handle. */
export interface LoopMachine<Ran> {
  readonly state: LoopState;
  start(): void;
  stop(options?: { timeoutMs?: number }): Promise<void>;
  runOnce(): Promise<Ran>;
}

/**
 * What the handle of a polling part (the worker, the relay) offers; each part's own interface says
 * what its `stop()` and its round (`runOnce()`) do.
 */
export interface PollingPart {
  /** Starts leasing in the background. Keeps the process alive until `stop()`. */
  start(): void;
  stop(options?: { timeoutMs?: number }): Promise<void>;
  runOnce(): Promise<number>;
  /** True between `start()` and `stop()`. */
  readonly running: boolean;
}

/**
 * The handle of a polling part (`createInboxWorker`, `createInboxRelay`): `running` and plain
 * functions, which keep working when passed on unbound (`.then(worker.stop)`).
 */
export function loopHandle<Ran>(machine: LoopMachine<Ran>) {
  return {
    get running() {
      return machine.state === LoopState.RUNNING;
    },
    start: () => machine.start(),
    stop: (stopOptions?: { timeoutMs?: number }) => machine.stop(stopOptions),
    runOnce: () => machine.runOnce(),
  };
}
