/**
 * @module pgBossRelay: stored inbox deliveries become pg-boss jobs (one `insert` per batch), each
 * under a job id derived from its handoff lease, so a repeated send queues it once.
 */
import { createHash } from 'node:crypto';
import {
  ConfigError,
  createInboxRelay,
  type InboxRelay,
  type InboxRelayOptions,
  jobIdOf,
  type QueuedDelivery,
} from '@webhook-idempotency/core';
import type { JobInsert, PgBoss } from 'pg-boss';

/** Options of {@link pgBossRelay}: the relay's own, plus where the jobs go. */
export interface PgBossRelayOptions extends Omit<InboxRelayOptions, 'send'> {
  /** A started `PgBoss`. Required. */
  boss: Pick<PgBoss, 'insert'>;
  /** The pg-boss queue (create it first with `boss.createQueue`). Required. */
  queue: string;
  /**
   * Options of every job, over the queue's own (`retryLimit`, `retryBackoff`, `expireInSeconds`…).
   * `id` and `data` are the relay's.
   */
  jobOptions?: Omit<JobInsert, 'id' | 'data'>;
}

/**
 * The pg-boss job id (a UUID, as pg-boss requires) of one handoff: {@link jobIdOf} hashed into
 * UUID version 8 form, so the same delivery and lease always give the same id.
 */
export function pgBossJobId(delivery: QueuedDelivery): string {
  const hex = createHash('sha256').update(jobIdOf(delivery)).digest('hex');
  const variant = ((Number.parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** Checks the options the bridges add, naming what is wrong. */
export function checkQueue(boss: unknown, method: string, queue: unknown): void {
  if (
    typeof boss !== 'object' ||
    boss === null ||
    typeof (boss as Record<string, unknown>)[method] !== 'function'
  )
    throw new ConfigError(
      'boss',
      'must be a started PgBoss instance (new PgBoss(url), await boss.start())',
    );
  if (typeof queue !== 'string' || queue === '')
    throw new ConfigError('queue', 'must be the name of a pg-boss queue');
}

/**
 * A relay that hands due deliveries of `providers` to the pg-boss `queue`; run it where the inbox
 * endpoint runs, or in any one process (several relays never queue one handoff twice).
 * @throws {ConfigError} naming the first invalid option.
 * @example
 * await boss.createQueue('webhooks', { retryLimit: 5, retryBackoff: true });
 * const relay = pgBossRelay({ boss, queue: 'webhooks', inbox, providers: ['stripe'] });
 * relay.start();
 * @see docs/inbox.md
 */
export function pgBossRelay(options: PgBossRelayOptions): InboxRelay {
  const { boss, queue, jobOptions = {}, ...relay } = options ?? ({} as PgBossRelayOptions);
  checkQueue(boss, 'insert', queue);
  if (typeof jobOptions !== 'object' || jobOptions === null)
    throw new ConfigError('jobOptions', 'must be an object of pg-boss job options');
  return createInboxRelay({
    ...relay,
    async send(deliveries) {
      await boss.insert(
        queue,
        deliveries.map((delivery) => ({
          ...jobOptions,
          id: pgBossJobId(delivery),
          data: { ...delivery },
        })),
      );
    },
  });
}
