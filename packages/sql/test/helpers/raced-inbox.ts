/**
 * @module An operator's view of a real inbox with a race put exactly where it hurts: every call
 * goes through to the inbox; once armed, the race (a worker's run, another operator's retry) runs
 * right after the next read (`find` or `list`) returns, before the repair gets what it read. What
 * the repair tests give the repairs instead of the inbox itself, so that the worker moves the
 * delivery between the operator's read and the write, every time.
 */
import type { InboxStore } from '@webhook-idempotency/core/inbox';

export class RacedInbox implements InboxStore {
  private race: (() => Promise<void>) | undefined;

  constructor(private readonly inbox: InboxStore) {}

  /** Runs `race` once, right after the next read returns. */
  arm(race: () => Promise<void>): this {
    this.race = race;
    return this;
  }

  private async afterRead<T>(value: T): Promise<T> {
    const race = this.race;
    this.race = undefined;
    if (race) await race();
    return value;
  }

  async find(...args: Parameters<InboxStore['find']>) {
    return this.afterRead(await this.inbox.find(...args));
  }
  async list(...args: Parameters<InboxStore['list']>) {
    return this.afterRead(await this.inbox.list(...args));
  }
  enqueue = (...args: Parameters<InboxStore['enqueue']>) => this.inbox.enqueue(...args);
  lease = (...args: Parameters<InboxStore['lease']>) => this.inbox.lease(...args);
  leaseRefs = (...args: Parameters<InboxStore['leaseRefs']>) => this.inbox.leaseRefs(...args);
  lapsed = (...args: Parameters<InboxStore['lapsed']>) => this.inbox.lapsed(...args);
  complete = (...args: Parameters<InboxStore['complete']>) => this.inbox.complete(...args);
  retry = (...args: Parameters<InboxStore['retry']>) => this.inbox.retry(...args);
  giveBack = (...args: Parameters<NonNullable<InboxStore['giveBack']>>) =>
    this.inbox.giveBack!(...args);
  extend = (...args: Parameters<InboxStore['extend']>) => this.inbox.extend(...args);
  bury = (...args: Parameters<InboxStore['bury']>) => this.inbox.bury(...args);
  redeliver = (...args: Parameters<InboxStore['redeliver']>) => this.inbox.redeliver(...args);
  retryNow = (...args: Parameters<InboxStore['retryNow']>) => this.inbox.retryNow(...args);
  purge = (...args: Parameters<InboxStore['purge']>) => this.inbox.purge(...args);
  backlog = (...args: Parameters<InboxStore['backlog']>) => this.inbox.backlog(...args);
}
