/**
 * @module The inbox relay (DESIGN.md §13): hands stored deliveries to a queue engine (pg-boss,
 * BullMQ) instead of our worker loop. A delivery is leased while it is handed over, so each one
 * is queued once per lease; a queue that loses it gets it again after the handoff timeout.
 */
import { createHash } from 'node:crypto';
import { SECOND } from '../constants';
import { ConfigError } from '../errors';
import { emitter, numberOption, refOf } from './run';
import type { Delivery, DeliveryRef, InboxEvent, InboxStore } from './types';

/**
 * What a queue job carries: a reference to a stored delivery and the lease it was handed over
 * with, never its body (the consumer reads the verified bytes from the inbox).
 */
export interface QueuedDelivery extends DeliveryRef {}

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
   * Hands a batch to the queue and resolves once the queue holds it durably. Must be idempotent
   * per {@link jobIdOf}: a batch can be sent again after a failure. The bridges implement it.
   */
  send(deliveries: readonly QueuedDelivery[]): Promise<void>;
  /** Deliveries claimed and sent at once. Defaults to 100. */
  batchSize?: number;
  /** Milliseconds between claims while nothing is due (and after a failed send). Defaults to 1000. */
  pollIntervalMs?: number;
  /**
   * Seconds the queue has to finish a handed-over delivery (retries included) before the relay
   * presumes the job lost and hands the delivery over again under a new lease. Defaults to 3600.
   */
  handoffTimeoutSeconds?: number;
  /** Receives `queued` and `store-error` events. Errors it throws are ignored. */
  onEvent?: (event: InboxEvent) => void;
}

/** A running (or stopped) relay. */
export interface InboxRelay {
  /** Starts claiming and sending in the background. Keeps the process alive until {@link InboxRelay.stop}. */
  start(): void;
  /** Stops claiming and waits for the batch being sent. */
  stop(): Promise<void>;
  /** One claim and send; resolves with how many deliveries were handed over. */
  runOnce(): Promise<number>;
  /** True between `start()` and `stop()`. */
  readonly running: boolean;
}

const toQueued = (d: Delivery): QueuedDelivery => refOf(d);

/**
 * Builds a relay that claims due deliveries of `providers` and hands them to a queue through
 * `send`; use a bridge (`@webhook-idempotency/pg-boss`, `@webhook-idempotency/bullmq`) rather than
 * calling it directly. The deliveries stay `processing` while the queue has them; the consumer
 * marks them `done` or `dead`. Ordering groups still hold: the next delivery of a group is handed
 * over only once the one before it is finished.
 * @throws {ConfigError} naming the first invalid option.
 * @see docs/inbox.md
 */
export function createInboxRelay(options: InboxRelayOptions): InboxRelay {
  if (typeof options !== 'object' || options === null)
    throw new ConfigError('options', 'must be an object with `inbox`, `providers` and `send`');
  const { inbox, send } = options;
  if (!inbox || typeof inbox.claim !== 'function' || typeof inbox.extend !== 'function')
    throw new ConfigError('inbox', 'must implement InboxStore (new SqlInbox(db))');
  if (typeof send !== 'function') throw new ConfigError('send', 'must be a function');
  const providers = options.providers;
  if (
    !Array.isArray(providers) ||
    providers.length === 0 ||
    !providers.every((p) => typeof p === 'string' && p !== '')
  )
    throw new ConfigError('providers', 'must be a non-empty array of provider names');
  const emit = emitter(options.onEvent);
  const batchSize = numberOption('batchSize', options.batchSize ?? 100, 1, true);
  const pollIntervalMs = numberOption('pollIntervalMs', options.pollIntervalMs ?? 1000, 1);
  const handoffMs =
    numberOption('handoffTimeoutSeconds', options.handoffTimeoutSeconds ?? 3600, 1) * SECOND;

  /** One claim and send; resolves with how many were handed over. A failure is reported, never thrown. */
  async function handOver(): Promise<number> {
    let claimed: Delivery[];
    try {
      claimed = await inbox.claim({
        providers: [...providers],
        limit: batchSize,
        leaseMs: SEND_LEASE_MS,
      });
    } catch (error) {
      emit({ type: 'store-error', operation: 'claim', error });
      return -1;
    }
    if (claimed.length === 0) return 0;
    const jobs = claimed.map(toQueued);
    try {
      await send(jobs);
    } catch (error) {
      emit({ type: 'store-error', operation: 'send', error });
      // Give them back at once; a store failure here only means the short lease runs out first.
      await Promise.all(
        claimed.map((d) =>
          inbox.retry(d, { delayMs: pollIntervalMs, error: null }).catch(() => false),
        ),
      );
      return -1;
    }
    try {
      await inbox.extend(jobs, { leaseMs: handoffMs });
    } catch (error) {
      // The short lease runs out and the deliveries are sent again under new leases: the
      // consumer skips the superseded jobs, and the receipts keep the effect single.
      emit({ type: 'store-error', operation: 'extend', error });
    }
    emit({ type: 'queued', deliveries: jobs });
    return claimed.length;
  }

  let running = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let current: Promise<unknown> | undefined;

  function schedule(delayMs: number): void {
    if (!running) return;
    timer = setTimeout(() => {
      timer = undefined;
      current = handOver().then((sent) => {
        current = undefined;
        schedule(sent === batchSize ? 0 : pollIntervalMs);
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
      schedule(0);
    },
    async stop() {
      running = false;
      clearTimeout(timer);
      timer = undefined;
      await current;
    },
    async runOnce() {
      return Math.max(0, await handOver());
    },
  };
}
