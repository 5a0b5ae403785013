/** @module The inbox worker's options, their defaults and checks, and its retry schedule. */
import { SECOND } from '../constants';
import { ConfigError } from '../errors';
import { givenName, renamedOption } from '../renamed-option';
import { handlersOf, type InboxHandlers } from './handlers';
import type { InboxWorkerStore } from './inbox-store';
import type { PollingPart } from './poll-loop';
import type { ReceiptsOptions } from './receipts-link';
import { emitter, MAX_LEASE_LIMIT, numberOption as number } from './run';
import type { GiveBackEventName, InboxEvent } from './types';

/** Options of {@link createInboxWorker}. */
export interface InboxWorkerOptions<Tx = never> extends ReceiptsOptions<Tx> {
  /**
   * Where the deliveries are: `new SqlInbox(db, { receipts: store })` on the receipts store's own
   * connection (each delivery marked done in its receipt's transaction, and first deliveries run
   * in groups), or any store with the worker's role (`new SqlInbox(db)`, `InMemoryInbox`).
   * Required.
   */
  inbox: InboxWorkerStore<NoInfer<Tx>>;
  /**
   * One handler per provider, or a route set (`routes(preset, { … })`) whose routes run the
   * delivery's event; the worker leases only deliveries of these providers. Required.
   */
  handlers: InboxHandlers<Tx>;
  /**
   * Handlers running at once in this worker, each in a transaction of its own (a group's handlers
   * run one after another in theirs), at most 1000. Defaults to 8.
   */
  concurrency?: number;
  /**
   * Deliveries without a failure yet run up to this many to a transaction (a group) where the
   * inbox writes in the receipts' transactions (`new SqlInbox(db, { receipts: store })`): their
   * handlers one after another, then one write for their receipts (`Store.recordFirst`), one for
   * their `done`, and one commit, instead of two commits per delivery. A lease call's first deliveries
   * go in as few groups as take them; what a group has not started leaves it `groupWindowMs` into
   * its transaction, for the free lanes, so slow handlers never wait for each other. A handler that
   * throws first in its transaction rolls the group back and alone is charged; the others run
   * again (docs/inbox.md, "Groups").
   * A lease call leases up to `concurrency × groupSize` deliveries. At most 100; 1 turns groups off.
   * Defaults to 8.
   */
  groupSize?: number;
  /** @deprecated Use `groupSize`. */
  batchSize?: number;
  /**
   * Milliseconds into a group's transaction after which it starts no more handlers: what it has
   * not started leaves it at once (even while a handler still runs) for the lanes free then, and
   * it commits what ran (slow handlers end up one per transaction, side by side). Defaults to 20.
   */
  groupWindowMs?: number;
  /** @deprecated Use `groupWindowMs`. */
  batchWindowMs?: number;
  /** Milliseconds between lease calls while nothing is due. Defaults to 1000. */
  pollIntervalMs?: number;
  /**
   * How long a leased delivery stays leased to this worker, in seconds: past it, another worker
   * takes it over (this one is presumed dead). The lease is renewed every third of it while the
   * delivery is in flight. With `store`, the receipts' `staleAfterSeconds` is 90 % of it and every
   * handler's deadline 80 % (with or without a transaction: `context.signal` aborts then), so a
   * handler never outlives its lease. Defaults to 60.
   */
  visibilityTimeoutSeconds?: number;
  /**
   * Failures after which a delivery becomes `dead` (compared with its `failures`): a handler that
   * threw or passed its deadline, or a lease that expired because its worker died (a delivery that
   * kills its worker every time is buried when leased again). Give-backs (a stop, another run
   * holding the receipt, a receipts-store failure) do not count; a redelivery starts over.
   * Defaults to 10.
   */
  maxFailures?: number;
  /** @deprecated Use `maxFailures`. */
  maxAttempts?: number;
  /** First retry delay in milliseconds, doubled per failure (and per receipts-store failure in a row). Defaults to 1000. */
  backoffBaseMs?: number;
  /** Longest retry delay in milliseconds. Defaults to one hour. */
  backoffMaxMs?: number;
  /** `[0, 1)`, for the jitter; for tests. Defaults to `Math.random`. */
  random?: () => number;
  /**
   * Receives `processed`, `retry`, `dead`, `given-back`, `lease-lost` and `store-error` events,
   * and once, as the worker is built, a `warning` for a setup that works against the inbox
   * (`InboxStore.cautionsFor`, or an inbox built with another receipts store). Errors it throws
   * are ignored.
   */
  onEvent?: (event: InboxEvent) => void;
  /**
   * @deprecated For one minor version: `'released'` emits each give-back under its name before
   * 0.2 instead of `'given-back'` (the default), while what reads the events moves.
   */
  giveBackEvent?: GiveBackEventName;
}

/** A running (or stopped) inbox worker. */
export interface InboxWorker extends PollingPart {
  /**
   * Stops leasing, gives back at once what was leased but not started (the rest of a group
   * included), waits up to `timeoutMs` (default 10 000) for the handlers in flight, then ends
   * the runs still going (a transaction is rolled back; `context.signal` aborts) and gives their
   * deliveries back (`pending`, due at once, no failure counted) so another worker takes them.
   * A lease call still blocked on the store does not hold it past `timeoutMs` (a `store-error` event
   * says so, and what it leases later is given back); give-back writes get 2 s more. Resolves when
   * done.
   */
  stop(options?: { timeoutMs?: number }): Promise<void>;
  /** One lease call (up to `concurrency × groupSize` deliveries where they run in groups, else `concurrency`) and their processing; resolves with how many were leased. */
  runOnce(): Promise<number>;
}

/** How long stop() waits, once it has ended the runs still going, for their deliveries to be given back. */
export const STOP_GRACE_MS = 2000;

/** The largest `groupSize`: a group reads its receipts in one statement of a SELECT per key (SQLite allows 500). */
const MAX_GROUP_SIZE = 100;

export const DEFAULTS = {
  concurrency: 8,
  groupSize: 8,
  groupWindowMs: 20,
  pollIntervalMs: 1000,
  visibilityTimeoutSeconds: 60,
  maxFailures: 10,
  backoffBaseMs: 1000,
  backoffMaxMs: 3_600_000,
  stopTimeoutMs: 10_000,
};

/**
 * Exponential backoff with jitter after the `failures`-th failure (1 for the first):
 * `min(maxMs, baseMs · 2^(failures − 1))`, of which a random
 * half is taken off, so deliveries that failed together do not come back together.
 */
export function retryDelayMs(
  failures: number,
  options: { baseMs: number; maxMs: number; random: () => number },
): number {
  const ceiling = Math.min(options.maxMs, options.baseMs * 2 ** Math.max(0, failures - 1));
  return Math.round(ceiling / 2 + (ceiling / 2) * options.random());
}

/**
 * The retry schedule of `backoffBaseMs` and `backoffMaxMs` (the worker's and the dispatcher's
 * options of those names), checked, with their defaults filled in, and `random` (checked already).
 */
export function backoffOf(
  options: { readonly backoffBaseMs?: number; readonly backoffMaxMs?: number },
  random: () => number,
): Parameters<typeof retryDelayMs>[1] {
  return {
    baseMs: number('backoffBaseMs', options.backoffBaseMs ?? DEFAULTS.backoffBaseMs, 0),
    maxMs: number('backoffMaxMs', options.backoffMaxMs ?? DEFAULTS.backoffMaxMs, 0),
    random,
  };
}

/**
 * A numeric option renamed in 0.2 (its new name, then its deprecated one), else `fallback`:
 * checked against `min` (and `integer`, `max`) under the name the caller gave it.
 */
function renamedNumber<Tx>(
  options: InboxWorkerOptions<Tx>,
  [newName, oldName]: readonly [keyof InboxWorkerOptions<Tx>, keyof InboxWorkerOptions<Tx>],
  fallback: number,
  min: number,
  { integer = false, max = Number.POSITIVE_INFINITY } = {},
): number {
  const value = renamedOption(options, newName, oldName) ?? fallback;
  return number(givenName(options, newName, oldName), value, min, integer, max);
}

/** How much the worker takes on and how often, checked, with their defaults filled in. */
function pacingOf<Tx>(options: InboxWorkerOptions<Tx>) {
  // Checked in the order the options are documented: the first invalid one is the one named.
  const concurrency = number(
    'concurrency',
    options.concurrency ?? DEFAULTS.concurrency,
    1,
    true,
    MAX_LEASE_LIMIT,
  );
  const groupSize = renamedNumber(options, ['groupSize', 'batchSize'], DEFAULTS.groupSize, 1, {
    integer: true,
    max: MAX_GROUP_SIZE,
  });
  const groupWindowMs = renamedNumber(
    options,
    ['groupWindowMs', 'batchWindowMs'],
    DEFAULTS.groupWindowMs,
    0,
  );
  const pollIntervalMs = number(
    'pollIntervalMs',
    options.pollIntervalMs ?? DEFAULTS.pollIntervalMs,
    1,
  );
  const visibility = number(
    'visibilityTimeoutSeconds',
    options.visibilityTimeoutSeconds ?? DEFAULTS.visibilityTimeoutSeconds,
    0.1,
  );
  const maxFailures = renamedNumber(
    options,
    ['maxFailures', 'maxAttempts'],
    DEFAULTS.maxFailures,
    1,
    {
      integer: true,
    },
  );
  const leaseMs = visibility * SECOND;
  return {
    concurrency,
    groupSize,
    groupWindowMs,
    pollIntervalMs,
    visibility,
    leaseMs,
    maxFailures,
  };
}

/** The worker's options, checked, with their defaults filled in. */
export function settingsOf<Tx>(options: InboxWorkerOptions<Tx>) {
  if (typeof options !== 'object' || options === null)
    throw new ConfigError('options', 'must be an object with `inbox`, `store` and `handlers`');
  const { inbox, random = Math.random } = options;
  if (!inbox || (typeof inbox.lease !== 'function' && typeof inbox.claim !== 'function'))
    throw new ConfigError('inbox', 'must implement InboxWorkerStore (new SqlInbox(db))');
  const { providers, handlers } = handlersOf<Tx>(options.handlers);
  const emit = emitter(options.onEvent, options.giveBackEvent);
  if (typeof random !== 'function') throw new ConfigError('random', 'must be a function');
  const pacing = pacingOf(options);
  const backoff = backoffOf(options, random);
  return { inbox, handlers, providers, emit, ...pacing, backoff };
}
