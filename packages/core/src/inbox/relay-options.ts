/**
 * @module The inbox relay's options and their checks, its public shape, and the job id of one
 * handoff ({@link jobIdOf}).
 */
import { createHash } from 'node:crypto';
import { SECOND } from '../constants';
import { ConfigError } from '../errors';
import { givenName, renamedOption } from '../renamed-option';
import type { Store } from '../types';
import { emitter, MAX_LEASE_LIMIT, numberOption } from './run';
import type { InboxRelayStore } from './inbox-store';
import { leasesOf } from './lease-count';
import type { PollingPart } from './poll-loop';
import type { DeliveryRef, GivenLeaseCount, InboxEvent } from './types';

/**
 * What a queue job carries: a reference to a stored delivery and the lease it was handed over
 * with, never its body (the consumer reads the verified bytes from the inbox).
 */
export interface QueuedDelivery extends DeliveryRef {}

/**
 * A queue job's reference as a caller gives it: its lease count as `leases`, or for one minor
 * version as `attempts` alone (the data of a job queued before the rename).
 */
export type GivenQueuedDelivery = Pick<QueuedDelivery, 'id' | 'provider' | 'externalId'> &
  GivenLeaseCount;

/**
 * Where a queue has the job of one handoff, as a bridge's `inspect` reports it: waiting or retrying
 * (`queued`), running (`active`), finished (`completed`, `failed`), or not there at all (`missing`:
 * lost, never added, or trimmed after it finished).
 */
export type HandoffState = 'queued' | 'active' | 'completed' | 'failed' | 'missing';

/**
 * A stable job id for one handoff, safe for every queue engine (letters, digits and `-`, no `:`):
 * the same delivery and lease always give the same id, so a send that is repeated after a failure
 * queues the job once. A later handoff of the same delivery (a newer lease) gets a new id.
 * @example
 * jobIdOf({ id: 7, provider: 'stripe', externalId: 'evt_1', leases: 1 }); // 'wi-3f9c…-7-1'
 */
export function jobIdOf(delivery: GivenQueuedDelivery): string {
  const key = createHash('sha256')
    .update(`${delivery.provider}\0${delivery.externalId}`)
    .digest('hex')
    .slice(0, 32);
  return `wi-${key}-${delivery.id}-${leasesOf(delivery)}`;
}

/** Options of {@link createInboxRelay}. */
export interface InboxRelayOptions {
  /** Where the deliveries are (`new SqlInbox(db)`): any store with the relay's role. Required. */
  inbox: InboxRelayStore;
  /** The providers whose deliveries this relay hands over. Required, at least one. */
  providers: readonly string[];
  /**
   * Hands deliveries to the queue (at most `sendSize`) and resolves once the queue holds them durably: with the deliveries
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
  /** Deliveries one round leases and hands to one `send`, at most 1000. Defaults to 100. */
  sendSize?: number;
  /** @deprecated Use `sendSize`. */
  batchSize?: number;
  /** Milliseconds between lease calls while nothing is due (and after a failed send). Defaults to 1000. */
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
export interface InboxRelay extends PollingPart {
  /**
   * Stops leasing and waits up to `timeoutMs` (default 10 000) for the round in progress (a claim
   * and a send); past it, it resolves anyway and reports a `store-error` (that round still ends on
   * its own: its claim is bounded by the store, its deliveries given back or handed over).
   * `start()` again resumes.
   */
  stop(options?: { timeoutMs?: number }): Promise<void>;
  /** One lease call and send; resolves with how many deliveries were handed over. */
  runOnce(): Promise<number>;
}

/** The relay's defaults. */
export const RELAY_DEFAULTS = {
  sendSize: 100,
  pollIntervalMs: 1000,
  handoffTimeoutSeconds: 3600,
  maxHandoffs: 3,
  stopTimeoutMs: 10_000,
};

/** The relay's options, checked, with their defaults filled in. @throws {ConfigError} naming the first invalid one. */
export function relaySettingsOf(options: InboxRelayOptions) {
  if (typeof options !== 'object' || options === null)
    throw new ConfigError('options', 'must be an object with `inbox`, `providers` and `send`');
  const { inbox, send, inspect, store, providers } = options;
  const leases = typeof inbox?.leaseRefs === 'function' || typeof inbox?.claimRefs === 'function';
  if (!inbox || !leases || typeof inbox.extend !== 'function')
    throw new ConfigError('inbox', 'must implement InboxRelayStore (new SqlInbox(db))');
  if (typeof send !== 'function') throw new ConfigError('send', 'must be a function');
  if (inspect !== undefined && typeof inspect !== 'function')
    throw new ConfigError('inspect', 'must be a function');
  if (inspect !== undefined && typeof inbox.lapsed !== 'function')
    throw new ConfigError('inbox', 'must implement InboxRelayStore.lapsed to inspect handoffs');
  if (store !== undefined && typeof store?.find !== 'function')
    throw new ConfigError('store', 'must be a receipts store (new SqlStore(db))');
  if (
    !Array.isArray(providers) ||
    providers.length === 0 ||
    !providers.every((p) => typeof p === 'string' && p !== '')
  )
    throw new ConfigError('providers', 'must be a non-empty array of provider names');
  const emit = emitter(options.onEvent);
  const { sendSize, pollIntervalMs, handoffTimeoutSeconds, maxHandoffs } = RELAY_DEFAULTS;
  const size = renamedOption(options, 'sendSize', 'batchSize') ?? sendSize;
  return {
    inbox,
    send,
    inspect,
    store,
    providers: [...providers],
    emit,
    sendSize: numberOption(
      givenName(options, 'sendSize', 'batchSize'),
      size,
      1,
      true,
      MAX_LEASE_LIMIT,
    ),
    pollIntervalMs: numberOption('pollIntervalMs', options.pollIntervalMs ?? pollIntervalMs, 1),
    handoffMs:
      numberOption(
        'handoffTimeoutSeconds',
        options.handoffTimeoutSeconds ?? handoffTimeoutSeconds,
        1,
      ) * SECOND,
    maxHandoffs: numberOption('maxHandoffs', options.maxHandoffs ?? maxHandoffs, 1, true),
  };
}

/** The relay's settings ({@link relaySettingsOf}). */
export type RelaySettings = ReturnType<typeof relaySettingsOf>;
