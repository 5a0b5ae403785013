/**
 * @module pgBossWorker: a pg-boss worker whose jobs run through the inbox consumer, each settled on
 * its own (`perJobResults`), so one failing job never retries the rest of its batch.
 */
import { ConfigError } from '@webhook-idempotency/core';
import {
  createInboxConsumer,
  type InboxConsumerOptions,
  InvalidJobData,
} from '@webhook-idempotency/core/adapter';
import type { JobResult, JobWithMetadata, PgBoss, WorkOptions } from 'pg-boss';
import { checkQueue, existingQueue } from './relay';

/** Options of {@link pgBossWorker}: the consumer's, plus the pg-boss queue and worker options. */
export interface PgBossWorkerOptions<Tx = never> extends InboxConsumerOptions<Tx> {
  /** A started `PgBoss`. Required. */
  boss: Pick<PgBoss, 'work' | 'getQueue'>;
  /** The queue the relay sends to. Required; it must exist. */
  queue: string;
  /** pg-boss worker options (`batchSize`, `localConcurrency`, `pollingIntervalSeconds`…). */
  workOptions?: Omit<WorkOptions, 'includeMetadata' | 'perJobResults' | 'transactional'>;
}

const failure = (error: unknown) => ({
  name: error instanceof Error ? error.name : 'Error',
  message: error instanceof Error ? error.message : String(error),
});

/**
 * Registers a pg-boss worker on `queue` whose jobs run their delivery's handler once through the
 * receipts; resolves with the worker id (`boss.offWork(queue, { id })` stops it). A job whose
 * handler failed is failed for pg-boss to retry (`retryLimit`); on its last retry the delivery is
 * marked dead. A job pg-boss redelivers after its handler committed is replayed from the receipt.
 * @throws {ConfigError} naming an invalid option, a missing queue, or a queue whose
 * `expireInSeconds` is shorter than `visibilityTimeoutSeconds` (pg-boss would hand a running job
 * to another worker).
 * @example
 * await pgBossWorker({ boss, queue: 'webhooks', inbox, store, handlers: { stripe: bookPayment } });
 * @see docs/inbox.md
 */
export async function pgBossWorker<Tx = never>(options: PgBossWorkerOptions<Tx>): Promise<string> {
  const { boss, queue, workOptions = {}, ...rest } = options ?? ({} as PgBossWorkerOptions<Tx>);
  checkQueue(boss, ['work', 'getQueue'], queue);
  const consumer = createInboxConsumer(rest);
  const found = await existingQueue(boss, queue);
  const visibility = rest.visibilityTimeoutSeconds ?? 60;
  if (found.expireInSeconds !== undefined && found.expireInSeconds < visibility)
    throw new ConfigError(
      'visibilityTimeoutSeconds',
      `must not exceed the queue's expireInSeconds (${found.expireInSeconds}), or pg-boss hands a running job to another worker`,
    );
  return boss.work(
    queue,
    { ...workOptions, includeMetadata: true, perJobResults: true },
    async function inboxJobs(jobs: JobWithMetadata<unknown>[]): Promise<JobResult[]> {
      return Promise.all(
        jobs.map(async (job): Promise<JobResult> => {
          try {
            const outcome = await consumer.process(job.data as never, {
              final: job.retryCount >= job.retryLimit,
            });
            return { id: job.id, status: 'completed', output: { outcome } };
          } catch (error) {
            // A job no relay made is not worth retrying; every other failure is pg-boss's to retry.
            const status = error instanceof InvalidJobData ? 'deadletter' : 'failed';
            return { id: job.id, status, output: failure(error) };
          }
        }),
      );
    },
  );
}
