/** @module `bullmqProcessor(options)`: a BullMQ processor that runs each relayed delivery through the inbox consumer. */
import {
  type ConsumeOutcome,
  createInboxConsumer,
  type InboxConsumerOptions,
  type QueuedDelivery,
} from '@webhook-idempotency/core/adapter';
import type { Job } from 'bullmq';
import { deliveryOfJob } from './job-data';

/** Options of {@link bullmqProcessor}: the inbox consumer's (`createInboxConsumer`). */
export type BullmqProcessorOptions<Tx = never> = InboxConsumerOptions<Tx>;

/** A BullMQ processor function for `new Worker(queueName, processor, opts)`; resolves the job's `returnvalue`. */
export type InboxJobProcessor = (job: Job<QueuedDelivery>) => Promise<ConsumeOutcome>;

/**
 * A processor for the jobs {@link bullmqRelay} adds. Each job runs its delivery's handler through
 * the receipts (exactly once: a job BullMQ runs again after a crash or a stall is replayed from
 * the receipt) and marks the delivery `done`; resolves `'processed'`, `'replayed'`, `'skipped'`
 * (nothing to do) or `'given-back'` (another run still holds the receipt: the delivery was given
 * back to the inbox and the relay hands it over again, so no BullMQ attempt is spent waiting). A failing
 * handler rejects, so BullMQ retries the job; on its last attempt (`attemptsMade + 1 >=
 * opts.attempts`) the delivery is first marked `dead` with the error. A job that is not a relayed
 * delivery fails at once with {@link InvalidInboxJob}.
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
  return async function processInboxJob(job) {
    const delivery = deliveryOfJob(job);
    return consumer.process(delivery, { final: job.attemptsMade + 1 >= (job.opts.attempts ?? 1) });
  };
}
