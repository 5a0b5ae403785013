/** @module The outbox dispatcher's options, their defaults and checks, and its public shape. */
import { SECOND } from '../constants';
import { ConfigError } from '../errors';
import type { LoopState } from '../inbox/poll-loop';
import { MAX_LEASE_LIMIT, numberOption as number, observer } from '../inbox/run';
import { backoffOf, DEFAULTS as WORKER_DEFAULTS } from '../inbox/worker-options';
import { SENDER_NAME } from './outbox';
import type { OutboxDispatchStore, OutboxEvent, OutboxSender } from './types';

/** Options of {@link createOutboxDispatcher}. */
export interface OutboxDispatcherOptions {
  /** Where the messages are: the `SqlOutbox` the handlers record in (any store with the dispatch role). Required. */
  readonly outbox: OutboxDispatchStore;
  /**
   * One sender per sender name (`{ http: httpSender(), email: emailSender(transport, …) }`): the
   * dispatcher leases only messages recorded for these names. Required, at least one.
   */
  readonly senders: Readonly<Record<string, OutboxSender>>;
  /** Messages sent at once by this dispatcher, at most 1000. Defaults to 8. */
  readonly concurrency?: number;
  /** Milliseconds between lease calls while nothing is due. Defaults to 1000. */
  readonly pollIntervalMs?: number;
  /**
   * How long a leased message stays leased to this dispatcher, in seconds: past it, another
   * dispatcher takes it over (this one is presumed dead) and sends it again under the same key.
   * Renewed every third of it while its send is under way. Defaults to 60.
   */
  readonly visibilityTimeoutSeconds?: number;
  /**
   * How long one attempt may take, in milliseconds: then the sender's `signal` aborts, the
   * dispatcher stops waiting and the attempt counts as a failure (retried). Below 80 % of the
   * lease. Defaults to 30 000, or half the lease when that is shorter.
   */
  readonly sendTimeoutMs?: number;
  /**
   * Failures after which a message is `dead` (compared with its `failures`): a sender that threw
   * or passed `sendTimeoutMs`, or a lease that ran out because its dispatcher died. Give-backs (a
   * stop) do not count. Defaults to 10.
   */
  readonly maxFailures?: number;
  /** First retry delay in milliseconds, doubled per failure, with jitter. Defaults to 1000. */
  readonly backoffBaseMs?: number;
  /** Longest retry delay in milliseconds. Defaults to one hour. */
  readonly backoffMaxMs?: number;
  /** `[0, 1)`, for the jitter; for tests. Defaults to `Math.random`. */
  readonly random?: () => number;
  /**
   * Receives `sent`, `retry`, `dead`, `given-back`, `lease-lost` and `store-error` events (for
   * logs and metrics). Errors it throws are ignored.
   */
  readonly onEvent?: (event: OutboxEvent) => void;
}

/** A running (or stopped) outbox dispatcher. */
export interface OutboxDispatcher {
  /** Starts leasing and sending in the background. Keeps the process alive until `stop()`. */
  start(): void;
  /**
   * Stops leasing, waits up to `timeoutMs` (default 10 000) for the sends under way, then aborts
   * their `signal`s and gives their messages back (`pending`, due at once, no failure counted):
   * the next dispatcher sends them again under the same key. What a lease call still blocked on
   * the store leases later is given back at once. Give-back writes get 2 s more. Resolves when done.
   */
  stop(options?: { timeoutMs?: number }): Promise<void>;
  /** One lease call (up to `concurrency` messages, fewer while sends are under way) and their sends; resolves with how many were leased. */
  runOnce(): Promise<number>;
  /** Where the dispatcher is: `idle`, `running`, `stopping` or `stopped`. */
  readonly state: LoopState;
}

/** The defaults of {@link OutboxDispatcherOptions}: the inbox worker's, and the send's deadline. */
export const DISPATCHER_DEFAULTS = {
  concurrency: WORKER_DEFAULTS.concurrency,
  pollIntervalMs: WORKER_DEFAULTS.pollIntervalMs,
  visibilityTimeoutSeconds: WORKER_DEFAULTS.visibilityTimeoutSeconds,
  sendTimeoutMs: 30_000,
  maxFailures: WORKER_DEFAULTS.maxFailures,
  backoffBaseMs: WORKER_DEFAULTS.backoffBaseMs,
  backoffMaxMs: WORKER_DEFAULTS.backoffMaxMs,
  stopTimeoutMs: WORKER_DEFAULTS.stopTimeoutMs,
};

/** A send may take at most this share of the lease, so it ends well before a renewal could be missed. */
const SEND_SHARE_OF_LEASE = 0.8;

const DISPATCH_ROLE = ['lease', 'extend', 'complete', 'retry', 'giveBack', 'bury'] as const;

/** `senders` checked: an object of functions keyed by valid sender names, at least one. */
function sendersOf(senders: unknown): Readonly<Record<string, OutboxSender>> {
  if (typeof senders !== 'object' || senders === null)
    throw new ConfigError('senders', 'must be an object of one sender function per sender name');
  const names = Object.keys(senders);
  if (names.length === 0) throw new ConfigError('senders', 'must name at least one sender');
  for (const name of names) {
    if (!SENDER_NAME.test(name))
      throw new ConfigError(
        'senders',
        `${JSON.stringify(name)} is not a sender name (1 to 64 letters, digits, ".", "_", ":" or "-", starting with a letter or digit)`,
      );
    if (typeof (senders as Record<string, unknown>)[name] !== 'function')
      throw new ConfigError('senders', `the sender "${name}" must be a function`);
  }
  return { ...(senders as Record<string, OutboxSender>) };
}

/** The lease and the send's deadline under it, checked together. */
function timingOf(options: OutboxDispatcherOptions) {
  const visibility = number(
    'visibilityTimeoutSeconds',
    options.visibilityTimeoutSeconds ?? DISPATCHER_DEFAULTS.visibilityTimeoutSeconds,
    0.1,
  );
  const leaseMs = visibility * SECOND;
  const limitMs = leaseMs * SEND_SHARE_OF_LEASE;
  const sendTimeoutMs = number(
    'sendTimeoutMs',
    options.sendTimeoutMs ?? Math.min(DISPATCHER_DEFAULTS.sendTimeoutMs, leaseMs / 2),
    1,
  );
  if (sendTimeoutMs >= limitMs)
    throw new ConfigError(
      'sendTimeoutMs',
      `must be below 80 % of the lease (visibilityTimeoutSeconds: ${visibility} s), so below ${limitMs} ms; got ${sendTimeoutMs}`,
    );
  return { leaseMs, sendTimeoutMs };
}

/** The dispatcher's options, checked in the order they are documented, with their defaults filled in. */
export function dispatcherSettingsOf(options: OutboxDispatcherOptions) {
  if (typeof options !== 'object' || options === null)
    throw new ConfigError('options', 'must be an object with `outbox` and `senders`');
  const { outbox, random = Math.random } = options;
  const missing = DISPATCH_ROLE.find(
    (method) =>
      typeof (outbox as Partial<OutboxDispatchStore> | undefined)?.[method] !== 'function',
  );
  if (missing !== undefined)
    throw new ConfigError(
      'outbox',
      `must be an outbox store (new SqlOutbox(db, { receipts: store })); it has no ${missing}()`,
    );
  const senders = sendersOf(options.senders);
  const { concurrency: c, pollIntervalMs: poll, maxFailures: max } = DISPATCHER_DEFAULTS;
  const concurrency = number('concurrency', options.concurrency ?? c, 1, true, MAX_LEASE_LIMIT);
  const pollIntervalMs = number('pollIntervalMs', options.pollIntervalMs ?? poll, 1);
  const timing = timingOf(options);
  const maxFailures = number('maxFailures', options.maxFailures ?? max, 1, true);
  const backoff = backoffOf(options, random);
  if (typeof random !== 'function') throw new ConfigError('random', 'must be a function');
  const emit = observer(options.onEvent);
  return { outbox, senders, concurrency, pollIntervalMs, ...timing, maxFailures, backoff, emit };
}

/** What the dispatcher runs on: {@link dispatcherSettingsOf}'s result. */
export type DispatcherSettings = ReturnType<typeof dispatcherSettingsOf>;
