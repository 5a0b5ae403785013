/** @module `bullmqRelay(options)`: the inbox relay whose `send` adds each handed-off delivery to a BullMQ queue. */
import { ConfigError } from '@webhook-idempotency/core';
import {
  createInboxRelay,
  type HandoffState,
  type InboxRelay,
  type InboxRelayOptions,
  jobIdOf,
  leaseCount,
  type QueuedDelivery,
} from '@webhook-idempotency/core/adapter';
import type { JobsOptions, Queue } from 'bullmq';

/**
 * The job options {@link bullmqRelay} uses unless `jobOptions` overrides them: 10 attempts with
 * exponential backoff from 1 s (the last retry waits 256 s, all of them together about 8.5
 * minutes, well inside the relay's default one-hour handoff timeout); finished jobs are trimmed
 * (completed: the last 1000 or one day; failed: the last 10 000 or a week). Trimming loses nothing:
 * a job only references its delivery, which the inbox keeps with its status and last error.
 */
export const DEFAULT_JOB_OPTIONS = {
  attempts: 10,
  backoff: { type: 'exponential', delay: 1000 },
  removeOnComplete: { age: 24 * 3600, count: 1000 },
  removeOnFail: { age: 7 * 24 * 3600, count: 10_000 },
} as const satisfies JobsOptions;

/** BullMQ's job states as the relay's handoff states; `unknown` (never added, lost, or trimmed) is `missing`. */
function handoffState(state: string): HandoffState {
  if (state === 'active' || state === 'completed' || state === 'failed') return state;
  if (state === 'waiting' || state === 'delayed' || state === 'prioritized') return 'queued';
  if (state === 'waiting-children') return 'queued';
  return 'missing';
}

/** Options of {@link bullmqRelay}: the inbox relay's, with a BullMQ queue instead of `send`. */
export interface BullmqRelayOptions extends Omit<InboxRelayOptions, 'send' | 'inspect'> {
  /**
   * The BullMQ queue the deliveries go to (`new Queue('webhooks', { connection })`). Required. Its
   * `getJobState` tells a lapsed handoff whose job is still waiting or running (a backlog: the
   * lease is extended) from a lost one.
   */
  queue: Pick<Queue<QueuedDelivery>, 'addBulk' | 'getJobState'>;
  /**
   * Merged over {@link DEFAULT_JOB_OPTIONS} for every job. `jobId` is the relay's own;
   * `deduplication`, `debounce` and `repeat` are refused (BullMQ would drop or repeat jobs).
   */
  jobOptions?: Omit<JobsOptions, 'jobId' | 'deduplication' | 'debounce' | 'repeat'>;
}

/**
 * An inbox relay (`createInboxRelay`) that hands stored deliveries to BullMQ: each send is one
 * `queue.addBulk` (atomic in Redis), one job per delivery, named by its provider, its data the
 * delivery's reference (never the body), its id `jobIdOf(delivery)`, so a send made again after
 * a failure adds nothing twice. Process the queue with {@link bullmqProcessor}.
 * @throws {ConfigError} naming the first invalid option.
 * @example
 * const queue = new Queue('webhooks', { connection: { host: '127.0.0.1', port: 6379 } });
 * const relay = bullmqRelay({ inbox: new SqlInbox(pool), queue, providers: ['stripe'] });
 * relay.start();
 * process.once('SIGTERM', () => void relay.stop().then(() => queue.close()));
 * @see docs/inbox.md
 */
export function bullmqRelay(options: BullmqRelayOptions): InboxRelay {
  if (typeof options !== 'object' || options === null)
    throw new ConfigError('options', 'must be an object with `inbox`, `queue` and `providers`');
  const { queue, jobOptions = {}, ...relay } = options;
  if (typeof queue?.addBulk !== 'function' || typeof queue.getJobState !== 'function')
    throw new ConfigError('queue', 'must be a BullMQ Queue (new Queue(name, { connection }))');
  if (typeof jobOptions !== 'object' || jobOptions === null || Array.isArray(jobOptions))
    throw new ConfigError('jobOptions', 'must be an object of BullMQ job options');
  if ('jobId' in jobOptions)
    throw new ConfigError(
      'jobOptions',
      'must not set jobId: the relay names each job jobIdOf(delivery)',
    );
  const dropping = ['deduplication', 'debounce', 'repeat'].find((name) => name in jobOptions);
  if (dropping !== undefined)
    throw new ConfigError(
      'jobOptions',
      `must not set ${dropping}: BullMQ would drop or repeat a delivery's job`,
    );
  const opts = { ...DEFAULT_JOB_OPTIONS, ...jobOptions };
  if (!Number.isSafeInteger(opts.attempts) || opts.attempts < 1)
    throw new ConfigError(
      'jobOptions',
      `attempts must be a whole number >= 1, got ${String(opts.attempts)}`,
    );
  return createInboxRelay({
    ...relay,
    async inspect(deliveries) {
      const states = await Promise.all(deliveries.map((d) => queue.getJobState(jobIdOf(d))));
      return states.map(handoffState);
    },
    async send(deliveries) {
      await queue.addBulk(
        deliveries.map((d) => ({
          name: d.provider,
          // The lease count under both its names for one minor version: a consumer of the
          // version before, still running in a rolling deploy, reads `attempts`.
          data: {
            id: d.id,
            provider: d.provider,
            externalId: d.externalId,
            ...leaseCount(d.leases),
          },
          opts: { ...opts, jobId: jobIdOf(d) },
        })),
      );
    },
  });
}
