/**
 * @module The queue consumer: what a pg-boss or BullMQ job runs. It reads the stored delivery, runs
 * its handler through the guard's receipts and ends its lease, so a queue's at-least-once
 * redelivery replays from the receipt instead of doubling the effect. It has no loop and no lease
 * of its own to renew: the queue runs the jobs, and the relay leased each delivery for its handoff.
 */
import { ConfigError } from '../errors';
import { giveBackLease, type InboxConsumerStore } from './inbox-store';
import { leaseCount, withLeases } from './lease-count';
import { completerOf, guardFor, type ReceiptsOptions, warnOfSetup } from './receipts-link';
import type { GivenQueuedDelivery, QueuedDelivery } from './relay-options';
import { emitter, errorText, type InboxHandler, numberOption, refOf, runDelivery } from './run';
import { handlersOf, type InboxHandlers, isPermanent } from './handlers';
import type { GiveBackEventName, InboxEvent, StoredDelivery } from './types';

/** Options of {@link createInboxConsumer}. */
export interface InboxConsumerOptions<Tx = never> extends ReceiptsOptions<Tx> {
  /**
   * Where the deliveries are (`new SqlInbox(db)`, or `new SqlInbox(db, { receipts: store })` to mark
   * each delivery done in its receipt's transaction). Required.
   */
  inbox: InboxConsumerStore<NoInfer<Tx>>;
  /** One handler per provider, as `createInboxWorker` takes them. Required. */
  handlers: InboxHandlers<Tx>;
  /**
   * Seconds one handler run may take: with `store`, the receipts' `staleAfterSeconds` is 90 % of
   * it and a transactional handler's deadline 80 %. Keep the queue's own job timeout (pg-boss
   * `expireInSeconds`, BullMQ's stalled-job check) at least this long. Defaults to 60.
   */
  visibilityTimeoutSeconds?: number;
  /**
   * Receives `processed`, `failed`, `dead`, `skipped`, `given-back` and `lease-lost` events, and
   * once, as the consumer is built, a `warning` for a setup that works against the inbox.
   */
  onEvent?: (event: InboxEvent) => void;
  /**
   * @deprecated For one minor version: `'released'` emits each give-back under its name before
   * 0.2 instead of `'given-back'` (the default), while what reads the events moves.
   */
  giveBackEvent?: GiveBackEventName;
}

/**
 * What one job came to (see {@link InboxConsumer.process}). `'released'` is the deprecated name of
 * `'given-back'`: no longer returned, and kept in the type for one minor version because a queue
 * keeps the result of the jobs it completed before the upgrade (BullMQ's `returnvalue`, pg-boss's
 * `output.outcome`); compare with both while such jobs are kept.
 */
export type ConsumeOutcome = 'processed' | 'replayed' | 'skipped' | 'given-back' | 'released';

/** Runs queue jobs made by an {@link createInboxRelay | inbox relay}. */
export interface InboxConsumer {
  /**
   * Processes one job: reads its delivery, runs the handler once through the receipts and marks
   * the delivery `done`. Resolves `'processed'`, `'replayed'` (the receipt showed it had run),
   * `'skipped'` (already finished, purged, or handed over again under a newer lease), or
   * `'given-back'`: another run still holds the receipt (a consumer died mid-job and its claim
   * is not stale yet), so the delivery was given back to the inbox, due once that claim can have
   * settled, and the relay hands it over again — the queue's retries are not spent waiting.
   * Rejects with the handler's error so the queue retries; on the queue's last attempt
   * (`final: true`) it marks the delivery `dead` first.
   */
  process(job: GivenQueuedDelivery, attempt: { readonly final: boolean }): Promise<ConsumeOutcome>;
  /** The providers it has handlers for. */
  readonly providers: readonly string[];
}

/**
 * A queue job whose data no relay made: retrying it cannot help, so the bridges fail it at once
 * (pg-boss `deadletter`, BullMQ `UnrecoverableError`). `option` names the field (`job.data.id`).
 */
export class InvalidJobData extends ConfigError {
  constructor(field: string, problem: string) {
    super(field, problem);
    this.name = 'InvalidJobData';
  }
}

const whole = (v: unknown, min: number): v is number =>
  typeof v === 'number' && Number.isSafeInteger(v) && v >= min;

/**
 * Checks that `data` is a job a relay made, naming what is wrong. Its lease count is `leases`, or
 * `attempts` alone in a job a relay queued before the rename (both, when given, must agree).
 * @throws {InvalidJobData}
 */
export function queuedDeliveryOf(data: unknown): QueuedDelivery {
  const d = data as Partial<Record<keyof QueuedDelivery, unknown>> | null;
  if (typeof d !== 'object' || d === null)
    throw new InvalidJobData('job.data', 'must be an object made by the inbox relay');
  if (!whole(d.id, 1))
    throw new InvalidJobData('job.data.id', `must be a delivery id, got ${String(d.id)}`);
  const leases = jobLeases(d);
  if (typeof d.provider !== 'string' || d.provider === '')
    throw new InvalidJobData('job.data.provider', 'must be a provider name');
  if (typeof d.externalId !== 'string' || d.externalId === '')
    throw new InvalidJobData('job.data.externalId', 'must be the delivery id');
  return { id: d.id, provider: d.provider, externalId: d.externalId, ...leaseCount(leases) };
}

/** A job's lease count: `leases`, else `attempts` (its name before); both given must agree. */
function jobLeases(d: { readonly leases?: unknown; readonly attempts?: unknown }): number {
  const field = d.leases === undefined && d.attempts !== undefined ? 'attempts' : 'leases';
  const value = d[field];
  if (!whole(value, 1))
    throw new InvalidJobData(`job.data.${field}`, `must be a lease (>= 1), got ${String(value)}`);
  if (d.attempts !== undefined && d.attempts !== value)
    throw new InvalidJobData(
      'job.data.leases',
      `and its old name job.data.attempts disagree (${value} and ${String(d.attempts)})`,
    );
  return value;
}

/**
 * Builds the consumer side of a queue bridge; the bridges wrap it in the queue's job handler.
 * @throws {ConfigError} naming the first invalid option.
 * @example
 * const consumer = createInboxConsumer({ inbox, store, handlers: { stripe: bookPayment } });
 * await consumer.process(job.data, { final: job.attemptsMade + 1 >= job.opts.attempts });
 * @see docs/inbox.md
 */
export function createInboxConsumer<Tx = never>(options: InboxConsumerOptions<Tx>): InboxConsumer {
  if (typeof options !== 'object' || options === null)
    throw new ConfigError('options', 'must be an object with `inbox`, `store` and `handlers`');
  const { inbox } = options;
  if (!inbox || typeof inbox.find !== 'function')
    throw new ConfigError('inbox', 'must implement InboxConsumerStore (new SqlInbox(db))');
  const { providers, handlers } = handlersOf<Tx>(options.handlers);
  const emit = emitter(options.onEvent, options.giveBackEvent);
  const visibility = numberOption(
    'visibilityTimeoutSeconds',
    options.visibilityTimeoutSeconds ?? 60,
    0.1,
  );
  const guard = guardFor(options, visibility);
  warnOfSetup(inbox, guard, emit);
  /** Marks a delivery done in its receipt's transaction, where inbox and receipts share one. */
  const complete = completerOf(inbox, guard);
  const scope: ConsumeScope<Tx> = { inbox, handlers, emit, guard, complete };
  return {
    providers,
    async process(input, { final }) {
      return consume(scope, queuedDeliveryOf(input), final);
    },
  };
}

/** What one job's processing needs of its consumer. */
interface ConsumeScope<Tx> {
  readonly inbox: InboxConsumerStore<Tx>;
  readonly handlers: Readonly<Record<string, InboxHandler<Tx>>>;
  readonly emit: (event: InboxEvent) => void;
  readonly guard: ReturnType<typeof guardFor<Tx>>;
  readonly complete: ReturnType<typeof completerOf>;
}

/** {@link InboxConsumer.process} of one checked job. */
async function consume<Tx>(
  scope: ConsumeScope<Tx>,
  job: QueuedDelivery,
  final: boolean,
): Promise<ConsumeOutcome> {
  const { inbox, handlers, emit, guard, complete } = scope;
  const ref = refOf(job);
  const found = await inbox.find(job.provider, job.externalId);
  const stored = found && withLeases(found);
  const skipped = skipReason(job, stored);
  if (skipped !== undefined) {
    emit({ type: 'skipped', delivery: ref, reason: skipped });
    return 'skipped';
  }
  const handler = handlers[job.provider];
  if (handler === undefined)
    // A relay for a provider this consumer has no handler for: a failure like any other.
    return failed(
      scope,
      job,
      new ConfigError('handlers', `no handler for provider "${job.provider}"`),
      final,
    );
  const result = await runDelivery(guard, handler, stored!, { complete, lease: job });
  if (result.kind === 'processed') {
    // The receipt committed: processed, even if marking the delivery was lost (a replay ends it).
    if (result.completed === undefined) await endLease(scope, job, () => inbox.complete(job));
    else if (!result.completed) emit({ type: 'lease-lost', delivery: ref });
    emit({ type: 'processed', delivery: ref, replayed: result.replayed });
    return result.replayed ? 'replayed' : 'processed';
  }
  if (result.kind === 'busy') {
    // Another run holds the receipt (a consumer that died mid-job, until its claim goes stale),
    // or the receipts store failed: give the delivery back to the inbox, due once that claim
    // can have settled (or after a back-off), rather than spend the queue's retries waiting.
    // The relay hands it over again under a new lease.
    const { delayMs, reason } = result;
    if (!(await endLease(scope, job, () => giveBackLease(inbox, job, { delayMs }))))
      return 'skipped';
    emit({ type: 'given-back', delivery: ref, reason });
    return 'given-back';
  }
  // A payload its schema refuses is buried at once: no retry changes it before a deploy.
  return failed(scope, job, result.error, final || isPermanent(result.error));
}

/** Why the job has nothing to do: finished, no longer stored, or handed over again since; `undefined` when it has. */
function skipReason(
  job: QueuedDelivery,
  stored: StoredDelivery | null,
): 'missing' | 'finished' | 'superseded' | undefined {
  if (stored === null || stored.id !== job.id) return 'missing';
  if (stored.status === 'done' || stored.status === 'dead') return 'finished';
  if (stored.status !== 'processing' || stored.leases !== job.leases) return 'superseded';
  return undefined;
}

/** A write that ends the job's lease; `false` (lease lost) is reported. A store failure rejects, so the queue retries. */
async function endLease<Tx>(
  scope: ConsumeScope<Tx>,
  job: QueuedDelivery,
  write: () => Promise<boolean>,
): Promise<boolean> {
  const ok = await write();
  if (!ok) scope.emit({ type: 'lease-lost', delivery: refOf(job) });
  return ok;
}

/** The handler failed (or there is none): the queue retries; its last attempt buries the delivery. */
async function failed<Tx>(
  scope: ConsumeScope<Tx>,
  job: QueuedDelivery,
  error: unknown,
  final: boolean,
): Promise<never> {
  const text = errorText(error);
  const ref = refOf(job);
  if (!final) scope.emit({ type: 'failed', delivery: ref, error: text });
  else if (await endLease(scope, job, () => scope.inbox.bury(job, { error: text })))
    scope.emit({ type: 'dead', delivery: ref, error: text });
  throw error;
}
