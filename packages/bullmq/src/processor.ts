/** @module `bullmqProcessor(options)`: a BullMQ processor that runs each relayed delivery through the inbox consumer. */
import {
  ClaimLost,
  type ConsumeOutcome,
  createInboxConsumer,
  type InboxConsumerOptions,
  type QueuedDelivery,
  RequestInProgress,
  SECOND,
} from '@webhook-idempotency/core';
import { DelayedError, type Job } from 'bullmq';
import { deliveryOfJob } from './job-data';

/** Options of {@link bullmqProcessor}: the inbox consumer's (`createInboxConsumer`). */
export type BullmqProcessorOptions<Tx = never> = InboxConsumerOptions<Tx>;

/** A BullMQ processor function for `new Worker(queueName, processor, opts)`. */
export type InboxJobProcessor = (
  job: Job<QueuedDelivery>,
  token?: string,
) => Promise<ConsumeOutcome>;

/**
 * A processor for the jobs {@link bullmqRelay} adds. Each job runs its delivery's handler through
 * the receipts (exactly once: a job BullMQ runs again after a crash or a stall is replayed from
 * the receipt) and marks the delivery `done`; resolves `'processed'`, `'replayed'` or `'skipped'`.
 * A failing handler rejects, so BullMQ retries the job; on its last attempt (`attemptsMade + 1 >=
 * opts.attempts`) the delivery is first marked `dead` with the error. While another run holds the
 * receipt, the job is moved back to delayed until that claim can have settled, without using up an
 * attempt. A job that is not a relayed delivery fails at once with {@link InvalidJobData}.
 * @throws {ConfigError} at construction, naming the first invalid option.
 * @example
 * const worker = new Worker('webhooks', bullmqProcessor({
 *   inbox: new SqlInbox(pool),
 *   store: new SqlStore(pool),
 *   handlers: { stripe: async (delivery, { transaction }) => bookPayment(delivery, transaction) },
 * }), { connection });
 * @see docs/inbox.md
 */
export function bullmqProcessor<Tx = never>(
  options: BullmqProcessorOptions<Tx>,
): InboxJobProcessor {
  const consumer = createInboxConsumer(options);
  return async function processInboxJob(job, token) {
    const delivery = deliveryOfJob(job);
    const final = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    try {
      return await consumer.process(delivery, { final });
    } catch (error) {
      const waitMs =
        error instanceof RequestInProgress
          ? error.retryAfterSeconds * SECOND
          : error instanceof ClaimLost
            ? SECOND
            : undefined;
      // Another run holds (or took over) the receipt: not this job's failure. Look again once that
      // claim can have settled; BullMQ counts no attempt for a job moved to delayed.
      if (waitMs === undefined || token === undefined) throw error;
      await job.moveToDelayed(Date.now() + waitMs, token);
      throw new DelayedError();
    }
  };
}
