/** @module A tiny async mutex with bounded waits: serialises work on a single synchronous connection (better-sqlite3). */

interface Waiter {
  readonly start: () => void;
  timer: ReturnType<typeof setTimeout> | undefined;
}

/** Runs one piece of async work at a time, in call order; a caller waits at most `waitMs` for its turn. */
export class Mutex {
  private held = false;
  private readonly queue: Waiter[] = [];

  /** True while some work holds the mutex. */
  get busy(): boolean {
    return this.held;
  }

  /**
   * Runs `work` when every earlier call has released the mutex; its result or error is passed
   * through. Rejects without running `work` when the turn does not come within `waitMs`: no wait
   * is without a bound, so a store call never hangs behind a stuck transaction.
   */
  run<T>(work: () => Promise<T> | T, waitMs: number): Promise<T> {
    return this.acquire(waitMs).then(async () => {
      try {
        return await work();
      } finally {
        this.release();
      }
    });
  }

  /** Takes the mutex (or rejects after `waitMs`); the caller must {@link Mutex.release} it exactly once. */
  acquire(waitMs: number): Promise<void> {
    if (!this.held) {
      this.held = true;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = { start: resolve, timer: undefined };
      waiter.timer = setTimeout(() => {
        const index = this.queue.indexOf(waiter);
        if (index !== -1) this.queue.splice(index, 1);
        reject(
          new Error(
            `the SQLite connection stayed busy for ${waitMs} ms (another transaction holds it)`,
          ),
        );
      }, waitMs);
      this.queue.push(waiter);
    });
  }

  /** Hands the mutex to the next waiter, or frees it. */
  release(): void {
    const next = this.queue.shift();
    if (!next) {
      this.held = false;
      return;
    }
    clearTimeout(next.timer);
    next.start();
  }
}
