/**
 * @module The inbox relay (DESIGN.md §13): hands stored deliveries to a queue engine (pg-boss,
 * BullMQ) instead of our worker loop. A delivery is leased while it is handed over, so each one
 * is queued once per lease; a queue that loses it gets it again after the handoff timeout.
 */
import { createHash } from 'node:crypto';
import { SECOND } from '../constants';
import { ConfigError } from '../errors';
import { RequestKey } from '../request-key';
import type { Store } from '../types';
import { emitter, MAX_CLAIM_LIMIT, numberOption, refOf } from './run';
import type { DeliveryLease, DeliveryRef, InboxEvent, InboxStore, LeasedRef } from './types';

/**
 * What a queue job carries: a reference to a stored delivery and the lease it was handed over
 * with, never its body (the consumer reads the verified bytes from the inbox).
 */
export interface QueuedDelivery extends DeliveryRef {}

/**
 * Where a queue has the job of one handoff, as a bridge's `inspect` reports it: waiting or retrying
 * (`queued`), running (`active`), finished (`completed`, `failed`), or not there at all (`missing`:
 * lost, never added, or trimmed after it finished).
 */
export type HandoffState = 'queued' | 'active' | 'completed' | 'failed' | 'missing';

/** How long a claimed delivery stays leased while the batch is sent; past it another relay sends it again. */
const SEND_LEASE_MS = 30 * SECOND;

/**
 * A stable job id for one handoff, safe for every queue engine (letters, digits and `-`, no `:`):
 * the same delivery and lease always give the same id, so a send that is repeated after a failure
 * queues the job once. A later handoff of the same delivery (a newer lease) gets a new id.
 * @example
 * jobIdOf({ id: 7, provider: 'stripe', externalId: 'evt_1', attempts: 1 }); // 'wi-3f9c…-7-1'
 */
export function jobIdOf(delivery: QueuedDelivery): string {
  const key = createHash('sha256')
    .update(`${delivery.provider}\0${delivery.externalId}`)
    .digest('hex')
    .slice(0, 32);
  return `wi-${key}-${delivery.id}-${delivery.attempts}`;
}

/** Options of {@link createInboxRelay}. */
export interface InboxRelayOptions {
  /** Where the deliveries are (`new SqlInbox(db)`). Required. */
  inbox: InboxStore;
  /** The providers whose deliveries this relay hands over. Required, at least one. */
  providers: readonly string[];
  /**
   * Hands a batch to the queue and resolves once the queue holds it durably: with the deliveries
   * it accepted when it may have refused some (a queue policy that keeps one job per key), or
   * nothing when it took them all. Refused ones go back to the inbox, due at the next poll. Job
   * ids from {@link jobIdOf} name one handoff. The bridges implement it.
   */
  send(
    deliveries: readonly QueuedDelivery[],
    // biome-ignore lint/suspicious/noConfusingVoidType: an `async` send that returns nothing is typed Promise<void>, and is allowed to.
  ): Promise<readonly QueuedDelivery[] | undefined | void>;
  /**
   * Asks the queue where the jobs of these handoffs are: one {@link HandoffState} per delivery, in
   * order (the bridges implement it). When a handoff's timeout passes, the relay asks first: a job
   * still `queued` or `active` is a backlog, not a lapse, and its lease is extended by another
   * handoff timeout, without counting a failure. Only a job that finished without settling its
   * delivery, or that the queue no longer has, counts as a lapse. Without it, every handoff whose
   * timeout passes is a lapse. When it rejects, nothing is taken over that round. No handoff is
   * taken over without this question: a lease that runs out just after it waits for the next round.
   */
  inspect?(deliveries: readonly QueuedDelivery[]): Promise<readonly HandoffState[]>;
  /**
   * The receipts store the consumers run through (`new SqlStore(db)`). Before the relay buries a
   * delivery whose handoffs lapsed `maxHandoffs` times, it reads the receipt: a `completed` one
   * means the handler committed, and the delivery is marked `done` instead (a `processed` event,
   * `replayed: true`). Without it, such a delivery is buried.
   */
  store?: Pick<Store<unknown>, 'find'>;
  /** Deliveries claimed and sent at once, at most 1000. Defaults to 100. */
  batchSize?: number;
  /** Milliseconds between claims while nothing is due (and after a failed send). Defaults to 1000. */
  pollIntervalMs?: number;
  /**
   * Seconds the queue has to finish a handed-over delivery (retries included) before the relay
   * presumes the job lost and hands the delivery over again under a new lease. Defaults to 3600.
   */
  handoffTimeoutSeconds?: number;
  /**
   * Handoffs that may lapse (the handoff timeout passed and the queue no longer runs the job: it
   * lost it, or its consumers died on it every time) before the delivery is dead instead of handed
   * over again. With `inspect`, a job still queued or running is never a lapse. Defaults to 3.
   */
  maxHandoffs?: number;
  /** Receives `queued`, `dead`, `processed` (a lapsed delivery its receipt completed) and `store-error` events. Errors it throws are ignored. */
  onEvent?: (event: InboxEvent) => void;
}

/** A running (or stopped) relay. */
export interface InboxRelay {
  /** Starts claiming and sending in the background. Keeps the process alive until {@link InboxRelay.stop}. */
  start(): void;
  /**
   * Stops claiming and waits up to `timeoutMs` (default 10 000) for the round in progress (a claim
   * and a send); past it, it resolves anyway and reports a `store-error` (that round still ends on
   * its own: its claim is bounded by the store, its deliveries given back or handed over).
   * `start()` again resumes.
   */
  stop(options?: { timeoutMs?: number }): Promise<void>;
  /** One claim and send; resolves with how many deliveries were handed over. */
  runOnce(): Promise<number>;
  /** True between `start()` and `stop()`. */
  readonly running: boolean;
}

const toQueued = (d: DeliveryRef): QueuedDelivery => refOf(d);
const stillRunning = (state: HandoffState | undefined) => state === 'queued' || state === 'active';

/**
 * Builds a relay that claims due deliveries of `providers` and hands them to a queue through
 * `send`; use a bridge (`@webhook-idempotency/pg-boss`, `@webhook-idempotency/bullmq`) rather than
 * calling it directly. The deliveries stay `processing` while the queue has them; the consumer
 * marks them `done` or `dead`. Ordering groups still hold: the next delivery of a group is handed
 * over only once the one before it is finished. A failed send is retried after a backoff that
 * doubles per failure in a row, up to a minute.
 * @throws {ConfigError} naming the first invalid option.
 * @see docs/inbox.md
 */
export function createInboxRelay(options: InboxRelayOptions): InboxRelay {
  if (typeof options !== 'object' || options === null)
    throw new ConfigError('options', 'must be an object with `inbox`, `providers` and `send`');
  const { inbox, send } = options;
  if (!inbox || typeof inbox.claimRefs !== 'function' || typeof inbox.extend !== 'function')
    throw new ConfigError('inbox', 'must implement InboxStore (new SqlInbox(db))');
  if (typeof send !== 'function') throw new ConfigError('send', 'must be a function');
  const { inspect, store } = options;
  if (inspect !== undefined && typeof inspect !== 'function')
    throw new ConfigError('inspect', 'must be a function');
  if (inspect !== undefined && typeof inbox.lapsed !== 'function')
    throw new ConfigError('inbox', 'must implement InboxStore.lapsed to inspect handoffs');
  if (store !== undefined && typeof store?.find !== 'function')
    throw new ConfigError('store', 'must be a receipts store (new SqlStore(db))');
  const providers = options.providers;
  if (
    !Array.isArray(providers) ||
    providers.length === 0 ||
    !providers.every((p) => typeof p === 'string' && p !== '')
  )
    throw new ConfigError('providers', 'must be a non-empty array of provider names');
  const emit = emitter(options.onEvent);
  const batchSize = numberOption('batchSize', options.batchSize ?? 100, 1, true, MAX_CLAIM_LIMIT);
  const pollIntervalMs = numberOption('pollIntervalMs', options.pollIntervalMs ?? 1000, 1);
  const handoffMs =
    numberOption('handoffTimeoutSeconds', options.handoffTimeoutSeconds ?? 3600, 1) * SECOND;
  const maxHandoffs = numberOption('maxHandoffs', options.maxHandoffs ?? 3, 1, true);
  /** Sends that failed in a row: the next round waits longer, up to a minute. */
  let sendFailures = 0;

  /** Whether the delivery's receipt shows its handler committed; `false` without a store or when it cannot say. */
  async function committed(d: DeliveryRef): Promise<boolean> {
    if (store === undefined) return false;
    try {
      const key = new RequestKey(d.provider, d.externalId);
      return (await store.find(key, { now: Date.now() }))?.status === 'completed';
    } catch (error) {
      emit({ type: 'store-error', operation: 'find', error, delivery: refOf(d) });
      return false;
    }
  }

  /**
   * Handoffs whose timeout passed while the queue still holds their job (queued behind a backlog,
   * or running) keep their lease for another handoff timeout: not a lapse, and not taken over.
   * Resolves with the leases of the others (the queue lost or finished their jobs), the oldest
   * `batchSize` of them: the leases this round's claim may take over. `undefined` when the inbox or
   * the queue could not say: nothing is taken over this round.
   */
  async function extendBacklog(
    check: NonNullable<typeof inspect>,
  ): Promise<DeliveryLease[] | undefined> {
    const disowned: DeliveryLease[] = [];
    for (let afterId = 0; ; ) {
      try {
        const lapsed = await inbox.lapsed({ providers: [...providers], limit: batchSize, afterId });
        if (lapsed.length === 0) return disowned;
        const states = await check(lapsed.map(toQueued));
        if (!Array.isArray(states) || states.length !== lapsed.length)
          throw new TypeError(`inspect must resolve one state per delivery (${lapsed.length})`);
        const held = lapsed.filter((_, i) => stillRunning(states[i]));
        if (held.length > 0) await inbox.extend(held, { leaseMs: handoffMs });
        for (const [i, d] of lapsed.entries())
          if (!stillRunning(states[i]) && disowned.length < batchSize)
            disowned.push({ id: d.id, attempts: d.attempts });
        if (lapsed.length < batchSize) return disowned;
        afterId = lapsed[lapsed.length - 1]!.id;
      } catch (error) {
        // Backs off as a failed send does: a queue that cannot answer would refuse the send too.
        sendFailures++;
        emit({ type: 'store-error', operation: 'inspect', error });
        return undefined;
      }
    }
  }

  /**
   * Deliveries whose handoffs lapsed `maxHandoffs` times are buried, not sent again; unless their
   * receipt shows the handler committed, and then they are done.
   */
  async function buryLapsed(claimed: LeasedRef[]): Promise<LeasedRef[]> {
    const send: LeasedRef[] = [];
    for (const d of claimed) {
      if (d.failures < maxHandoffs) {
        send.push(d);
        continue;
      }
      if (await committed(d)) {
        try {
          if (await inbox.complete(d))
            emit({ type: 'processed', delivery: refOf(d), replayed: true });
        } catch (cause) {
          emit({ type: 'store-error', operation: 'complete', error: cause, delivery: refOf(d) });
        }
        continue;
      }
      const error = `LeaseExpired: ${d.failures} handoffs to the queue lapsed without the job settling it`;
      try {
        if (await inbox.bury(d, { error })) emit({ type: 'dead', delivery: refOf(d), error });
      } catch (cause) {
        emit({ type: 'store-error', operation: 'bury', error: cause, delivery: refOf(d) });
      }
    }
    return send;
  }

  /** One claim and send; resolves with how many were handed over. A failure is reported, never thrown. */
  async function handOver(): Promise<number> {
    // With `inspect`, the claim takes over only the expired leases the queue disowned (and only
    // while they are still expired and held under those leases): a lease that runs out after the
    // question waits for the next round's.
    const takeOver = inspect === undefined ? true : await extendBacklog(inspect);
    if (takeOver === undefined) return -1;
    let claimed: LeasedRef[];
    try {
      claimed = await inbox.claimRefs({
        providers: [...providers],
        limit: batchSize,
        leaseMs: SEND_LEASE_MS,
        takeOver,
      });
    } catch (error) {
      emit({ type: 'store-error', operation: 'claim', error });
      return -1;
    }
    if (claimed.length === 0) return 0;
    const jobs = (await buryLapsed(claimed)).map(toQueued);
    if (jobs.length === 0) return claimed.length;
    /** Back to the inbox, due at the next poll; a store failure only means the short lease runs out first. */
    const giveBack = (refused: readonly QueuedDelivery[]) =>
      Promise.all(
        refused.map((d) =>
          inbox.retry(d, { delayMs: pollIntervalMs, error: null }).catch(() => false),
        ),
      );
    let accepted: readonly QueuedDelivery[];
    try {
      accepted = (await send(jobs)) ?? jobs;
      sendFailures = 0;
    } catch (error) {
      sendFailures++;
      emit({ type: 'store-error', operation: 'send', error });
      await giveBack(jobs);
      return -1;
    }
    const taken = new Set(accepted.map(jobIdOf));
    await giveBack(jobs.filter((job) => !taken.has(jobIdOf(job))));
    const queued = jobs.filter((job) => taken.has(jobIdOf(job)));
    try {
      await inbox.extend(queued, { leaseMs: handoffMs });
    } catch (error) {
      // The short lease runs out and the deliveries are sent again under new leases: the
      // consumer skips the superseded jobs, and the receipts keep the effect single.
      emit({ type: 'store-error', operation: 'extend', error });
    }
    if (queued.length > 0) emit({ type: 'queued', deliveries: queued });
    return claimed.length;
  }

  let running = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let current: Promise<unknown> | undefined;
  /** One loop at a time: a round of a loop that was stopped does not schedule the next one. */
  let loop = 0;

  function schedule(delayMs: number, of: number): void {
    if (!running || of !== loop) return;
    timer = setTimeout(() => {
      timer = undefined;
      current = handOver()
        .catch((error: unknown) => {
          // Only a misbehaving custom store gets here (SqlInbox reports through the paths above).
          emit({ type: 'store-error', operation: 'claim', error });
          return -1;
        })
        .then((sent) => {
          current = undefined;
          const failed = sent < 0 ? Math.min(60_000, pollIntervalMs * 2 ** sendFailures) : 0;
          schedule(sent === batchSize ? 0 : Math.max(pollIntervalMs, failed), of);
        });
    }, delayMs);
  }

  return {
    get running() {
      return running;
    },
    start() {
      if (running) return;
      running = true;
      schedule(0, ++loop);
    },
    async stop({ timeoutMs = 10_000 } = {}) {
      const ms = numberOption('timeoutMs', timeoutMs, 0);
      running = false;
      clearTimeout(timer);
      timer = undefined;
      if (!current) return;
      let deadline: ReturnType<typeof setTimeout> | undefined;
      const finished = await Promise.race([
        current.then(() => true),
        new Promise<boolean>((resolve) => {
          deadline = setTimeout(() => resolve(false), ms);
        }),
      ]);
      clearTimeout(deadline);
      if (!finished)
        emit({
          type: 'store-error',
          operation: 'claim',
          error: new Error(`stop: the round in progress had not ended after ${ms} ms`),
        });
    },
    async runOnce() {
      return Math.max(0, await handOver());
    },
  };
}
