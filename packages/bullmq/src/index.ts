/**
 * The BullMQ bridge of inbox mode: `bullmqRelay(options)` hands stored deliveries to a BullMQ
 * queue, `bullmqProcessor(options)` processes them in a BullMQ worker, exactly once.
 * @module @webhook-idempotency/bullmq
 */
export { InvalidInboxJob } from './job-data';
export {
  bullmqProcessor,
  type BullmqProcessorOptions,
  type InboxJobProcessor,
} from './processor';
export { bullmqRelay, type BullmqRelayOptions, DEFAULT_JOB_OPTIONS } from './relay';
