/**
 * @module pgBossRelay: stored inbox deliveries become pg-boss jobs (one `insert` per send), each
 * under a job id derived from its handoff lease. Only a `standard` queue is accepted: the other
 * policies keep one job per key and would drop deliveries silently.
 */
import { createHash } from 'node:crypto';
import { ConfigError } from '@webhook-idempotency/core';
import {
  createInboxRelay,
  type HandoffState,
  type InboxRelay,
  type InboxRelayOptions,
  type GivenQueuedDelivery,
  jobIdOf,
  type QueuedDelivery,
} from '@webhook-idempotency/core/adapter';
import type { JobInsert, PgBoss, QueueResult } from 'pg-boss';

/** Job options the relay refuses: each would let pg-boss drop or hold back a delivery's job. */
const REFUSED_JOB_OPTIONS = ['id', 'data', 'singletonKey', 'singletonSeconds', 'group'] as const;

/** Options of {@link pgBossRelay}: the relay's own, plus where the jobs go. */
export interface PgBossRelayOptions extends Omit<InboxRelayOptions, 'send' | 'inspect'> {
  /** A started `PgBoss`. Required. */
  boss: Pick<PgBoss, 'insert' | 'getQueue' | 'getJobById'>;
  /** The pg-boss queue, created first with `boss.createQueue` (policy `standard`). Required. */
  queue: string;
  /**
   * Options of every job, over the queue's own (`retryLimit`, `retryBackoff`, `expireInSeconds`,
   * `priority`…). `id` and `data` are the relay's; `singletonKey`, `singletonSeconds` and `group`
   * are refused (pg-boss would drop or hold back jobs).
   */
  jobOptions?: Omit<JobInsert, 'id' | 'data' | 'singletonKey' | 'singletonSeconds' | 'group'>;
}

/** pg-boss's job states as the relay's handoff states: `created` and `retry` are still queued. */
const STATES: Record<string, HandoffState> = {
  created: 'queued',
  retry: 'queued',
  active: 'active',
  completed: 'completed',
  failed: 'failed',
  cancelled: 'failed',
};

/**
 * The pg-boss job id (a UUID, as pg-boss requires) of one handoff: {@link jobIdOf} hashed into
 * UUID version 8 form, so the same delivery and lease always give the same id.
 */
export function pgBossJobId(delivery: GivenQueuedDelivery): string {
  const hex = createHash('sha256').update(jobIdOf(delivery)).digest('hex');
  const variant = ((Number.parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** Checks the options the bridges add, naming what is wrong. */
export function checkQueue(boss: unknown, methods: readonly string[], queue: unknown): void {
  const b = boss as Record<string, unknown> | null;
  if (typeof b !== 'object' || b === null || !methods.every((m) => typeof b[m] === 'function'))
    throw new ConfigError(
      'boss',
      'must be a started PgBoss instance (new PgBoss(url), await boss.start())',
    );
  if (typeof queue !== 'string' || queue === '')
    throw new ConfigError('queue', 'must be the name of a pg-boss queue');
}

/** The queue, or a ConfigError saying how to create it. */
export async function existingQueue(
  boss: Pick<PgBoss, 'getQueue'>,
  queue: string,
): Promise<QueueResult> {
  const found = await boss.getQueue(queue);
  if (found === null)
    throw new ConfigError(
      'queue',
      `no pg-boss queue "${queue}": create it with boss.createQueue()`,
    );
  return found;
}

/**
 * The longest pg-boss can keep one job going, in seconds: every attempt running up to
 * `expireInSeconds`, with the retry delays between them (their upper bound with `retryBackoff`).
 */
export function longestJobSeconds(options: {
  readonly retryLimit?: number;
  readonly retryDelay?: number;
  readonly retryBackoff?: boolean;
  readonly retryDelayMax?: number;
  readonly expireInSeconds?: number;
}): number {
  const retries = options.retryLimit ?? 2;
  const base = options.retryDelay ?? (options.retryBackoff ? 1 : 0);
  let delays = 0;
  for (let n = 1; n <= retries; n++)
    delays += options.retryBackoff
      ? Math.min(options.retryDelayMax ?? Number.POSITIVE_INFINITY, base * 2 ** Math.min(16, n))
      : base;
  return (retries + 1) * (options.expireInSeconds ?? 900) + delays;
}

/**
 * A relay that hands due deliveries of `providers` to the pg-boss `queue`; run it where the inbox
 * endpoint runs, or in any one process (several relays never queue one handoff twice). Resolves
 * once it has checked the queue: it exists, its policy is `standard`, and `handoffTimeoutSeconds`
 * covers the longest a job can keep going with its retries (else the relay would hand a delivery
 * over again while pg-boss still retries it).
 * @throws {ConfigError} naming the first invalid option.
 * @example
 * await boss.createQueue('webhooks', { retryLimit: 5, retryBackoff: true });
 * const relay = await pgBossRelay({ boss, queue: 'webhooks', inbox, providers: ['stripe'] });
 * relay.start();
 * @see docs/inbox.md
 */
export async function pgBossRelay(options: PgBossRelayOptions): Promise<InboxRelay> {
  const { boss, queue, jobOptions = {}, ...relay } = options ?? ({} as PgBossRelayOptions);
  checkQueue(boss, ['insert', 'getQueue', 'getJobById'], queue);
  if (typeof jobOptions !== 'object' || jobOptions === null)
    throw new ConfigError('jobOptions', 'must be an object of pg-boss job options');
  const refused = REFUSED_JOB_OPTIONS.find((name) => name in jobOptions);
  if (refused !== undefined)
    throw new ConfigError(
      `jobOptions.${refused}`,
      'is the relay’s own, or would let pg-boss drop or hold back a delivery’s job',
    );
  const found = await existingQueue(boss, queue);
  if (found.policy !== undefined && found.policy !== 'standard')
    throw new ConfigError(
      'queue',
      `"${queue}" has policy "${found.policy}", which keeps one job per key: use a "standard" queue`,
    );
  const longest = longestJobSeconds({ ...found, ...jobOptions });
  const handoff = relay.handoffTimeoutSeconds ?? 3600;
  if (typeof handoff === 'number' && handoff < longest)
    throw new ConfigError(
      'handoffTimeoutSeconds',
      `must cover the longest a job of "${queue}" can keep going with its retries (${longest} s: retryLimit, expireInSeconds and retry delays), got ${handoff}`,
    );
  return createInboxRelay({
    ...relay,
    // A lapsed handoff whose job pg-boss still holds (created, retry, active) is a backlog: the
    // relay extends its lease instead of counting a failure.
    async inspect(deliveries) {
      const states: HandoffState[] = [];
      for (const delivery of deliveries) {
        const job = await boss.getJobById(queue, pgBossJobId(delivery));
        states.push(job === null ? 'missing' : (STATES[job.state] ?? 'missing'));
      }
      return states;
    },
    async send(deliveries) {
      const ids = deliveries.map(pgBossJobId);
      const inserted = new Set(
        (await boss.insert(
          queue,
          // A delivery reference carries its lease count under both names (`leases`, and
          // `attempts` for a consumer of the version before in a rolling deploy).
          deliveries.map((delivery, i) => ({ ...jobOptions, id: ids[i], data: { ...delivery } })),
        )) ?? [],
      );
      // A job pg-boss did not insert is accepted only if it exists: the same handoff sent before.
      const accepted: QueuedDelivery[] = [];
      for (const [i, delivery] of deliveries.entries())
        if (inserted.has(ids[i]!) || (await boss.getJobById(queue, ids[i]!)) !== null)
          accepted.push(delivery);
      return accepted;
    },
  });
}
