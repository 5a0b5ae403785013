/** @module A tiny async mutex: serialises work on a single synchronous connection (better-sqlite3). */

/** Runs one piece of async work at a time, in call order. */
export class Mutex {
  private tail: Promise<unknown> = Promise.resolve();

  /** Runs `work` when every earlier call has settled; its result or error is passed through. */
  run<T>(work: () => Promise<T> | T): Promise<T> {
    const result = this.tail.then(work);
    this.tail = result.catch(() => undefined);
    return result;
  }
}
