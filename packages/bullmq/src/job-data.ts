/** @module The check that a BullMQ job is one a relay made, failing it for good when not: {@link InvalidInboxJob}. */
import {
  InvalidJobData,
  type QueuedDelivery,
  queuedDeliveryOf,
} from '@webhook-idempotency/core/adapter';
import { UnrecoverableError } from 'bullmq';

/**
 * A job that the relay did not make (core's `InvalidJobData`, as BullMQ's `UnrecoverableError`): its data is not a `QueuedDelivery` (`field` names the first
 * thing wrong). It extends BullMQ's `UnrecoverableError`, so BullMQ fails the job at once (it stays
 * in the failed set for inspection) instead of retrying what can never succeed.
 */
export class InvalidInboxJob extends UnrecoverableError {
  /** The id of the job that was refused. */
  readonly jobId: string | undefined;
  /** What is wrong: `job.data`, `job.data.id`, `job.data.provider`, `job.data.externalId`, `job.data.leases` (or `job.data.attempts`, its name in a job queued before the rename). */
  readonly field: string;
  constructor(jobId: string | undefined, field: string, problem: string) {
    super(`Job ${jobId ?? '(no id)'} is not an inbox delivery: ${field} ${problem}`);
    this.name = 'InvalidInboxJob';
    this.jobId = jobId;
    this.field = field;
  }
}

/** The job's delivery reference (core's `queuedDeliveryOf`); throws {@link InvalidInboxJob} otherwise. */
export function deliveryOfJob(job: {
  readonly id?: string;
  readonly data: unknown;
}): QueuedDelivery {
  try {
    return queuedDeliveryOf(job.data);
  } catch (error) {
    if (!(error instanceof InvalidJobData)) throw error;
    // ConfigError's message adds its docs link; the problem is what follows the option's name.
    const problem = error.message
      .replace(/^Invalid option "[^"]*": /, '')
      .replace(/ \(see [^)]*\)$/, '');
    throw new InvalidInboxJob(job.id, error.option, problem);
  }
}
