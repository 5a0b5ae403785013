/**
 * @module Group commit for the inbox endpoint: deliveries that arrive while a commit is in flight
 * are written together in the next transaction, so a durable database pays one commit (one log
 * flush) for all of them instead of one each. Every caller is answered only after the transaction
 * holding its own row has committed; a batch that fails is written again row by row, so one bad
 * delivery never fails the others.
 */

/** How a batch is formed. */
export interface GroupCommitLimits {
  /** Most rows one transaction writes. */
  readonly maxBatch: number;
  /**
   * How long the first row of a batch waits for company, in milliseconds. 0: no wait (a row that
   * arrives while nothing is in flight is written at once; the ones that arrive meanwhile form the
   * next batch), for drivers whose commits run concurrently with the event loop. A synchronous
   * driver (better-sqlite3) blocks the loop during its commit, so nothing can arrive meanwhile:
   * there the batch is what arrived before the next turn of the event loop (`'turn'`).
   */
  readonly wait: number | 'turn';
  /** Transactions in flight at once; more rows queue for the next one. */
  readonly maxInFlight: number;
}

interface Waiting<T, R> {
  readonly item: T;
  readonly resolve: (result: R) => void;
  readonly reject: (error: unknown) => void;
}

/** Batches concurrent writes into shared transactions; see the module's description. */
export class GroupCommit<T, R> {
  private readonly queue: Waiting<T, R>[] = [];
  private inFlight = 0;
  private scheduled = false;

  /**
   * @param writeBatch writes every item in one transaction, resolving with one result per item in
   *   order, only once that transaction has committed.
   * @param writeOne writes one item on its own (no batch, or a batch that failed).
   * @param limits how batches form.
   * @param onBatch told the size of each transaction written, for tests and metrics.
   */
  constructor(
    private readonly writeBatch: (items: readonly T[]) => Promise<readonly R[]>,
    private readonly writeOne: (item: T) => Promise<R>,
    private readonly limits: GroupCommitLimits,
    private readonly onBatch?: (size: number) => void,
  ) {}

  /** Queues `item` for the next transaction; resolves with its result once that committed. */
  submit(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.limits.maxInFlight || this.queue.length === 0)
      return;
    const { wait, maxBatch } = this.limits;
    if (wait === 0 || this.queue.length >= maxBatch) {
      void this.flush();
      return;
    }
    this.scheduled = true;
    const go = () => {
      this.scheduled = false;
      void this.flush();
    };
    if (wait === 'turn') setImmediate(go);
    else setTimeout(go, wait);
  }

  private async flush(): Promise<void> {
    if (this.inFlight >= this.limits.maxInFlight || this.queue.length === 0) return;
    const batch = this.queue.splice(0, this.limits.maxBatch);
    this.inFlight++;
    try {
      if (batch.length > 1) {
        const written = await this.writeBatch(batch.map((waiting) => waiting.item)).then(
          (results) => results,
          () => undefined,
        );
        if (written !== undefined) {
          this.onBatch?.(batch.length);
          for (const [index, waiting] of batch.entries()) waiting.resolve(written[index] as R);
          return;
        }
      }
      // One row, or a batch whose transaction failed (a row the database refused, a lost
      // connection): each row on its own, so each caller gets its own answer.
      await Promise.all(
        batch.map((waiting) =>
          this.writeOne(waiting.item).then((result) => {
            this.onBatch?.(1);
            waiting.resolve(result);
          }, waiting.reject),
        ),
      );
    } finally {
      this.inFlight--;
      this.schedule();
    }
  }
}
