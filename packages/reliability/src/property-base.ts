/** @module The model-based property's vocabulary: keys, clock jumps, the model and real sides of a run, and the checks' helpers. */
import { isDeepStrictEqual } from 'node:util';
import {
  DAY,
  type IdempotencyGuard,
  RequestKey,
  type Outcome,
  type Store,
} from '@webhook-idempotency/core';
import type { ReceiptModel } from './model';
import type { VirtualClock } from './property-clock';

/** The keys deliveries use: the same external id at two providers is two events. */
export const KEYS: readonly RequestKey[] = [
  new RequestKey('stripe', 'evt_1'),
  new RequestKey('stripe', 'evt_2'),
  new RequestKey('github', 'evt_1'),
];
/** Request fingerprints: two bodies, and a request without a body (`null`). */
export const FINGERPRINTS: readonly (string | null)[] = ['fp-a', 'fp-b', null];
/** The guard's stale threshold in the property. */
export const STALE_AFTER_SECONDS = 60;
export const STALE_MS = STALE_AFTER_SECONDS * 1000;
/** Clock jumps: around the stale threshold (both sides of it) and around purge cut-offs. */
export const CLOCK_JUMPS_MS: readonly number[] = [
  1,
  1_000,
  STALE_MS - 1,
  STALE_MS,
  STALE_MS + 1_000,
  DAY,
  31 * DAY,
];
/** Where every run's clock starts. */
export const START_MS = Date.UTC(2026, 0, 1);

export const idOf = (key: RequestKey) => `${key.provider}/${key.externalId}`;

/** How a handler ends. `http-error` is a non-2xx answer: at the guard's level, a throw. */
export type Ending = 'return' | 'throw' | 'http-error';
/** What a handler of a delivery does: end now, or `hold` (not settle within the step; a later step settles it). */
export type Behaviour = Ending | 'hold';

/** A handler's non-2xx answer, as an HTTP adapter turns it into a throw. */
export class HttpError extends Error {
  readonly status: number;
  constructor(status: number) {
    super(`answered ${status}`);
    this.name = 'HttpError';
    this.status = status;
  }
}

/** A held run as the model knows it. */
export interface ModelHeld {
  readonly key: string;
  readonly claim: number;
  readonly attempts: number;
}

/** The model side of a run. */
export interface PropertyModel {
  readonly ref: ReceiptModel;
  /** Handlers that started and have not settled, oldest first (parallel to {@link PropertyReal.held}). */
  readonly held: ModelHeld[];
}

export type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

/** A handler that is running, as the real side saw it start. */
export interface Running {
  readonly key: string;
  readonly attempts: number;
  readonly startedAt: number;
}

/** A held run on the real side: release it to let its handler end. */
export interface RealHeld {
  readonly key: string;
  /** What the handler returns when released with `'return'`. */
  readonly value: unknown;
  readonly release: (ending: Ending) => unknown;
  readonly outcome: Promise<Settled<Outcome<unknown>>>;
}

/** The real side of a run: the guard over the store under test, on the virtual clock. */
export interface PropertyReal {
  readonly guard: IdempotencyGuard<unknown, unknown>;
  readonly store: Store<unknown>;
  readonly clock: VirtualClock;
  readonly held: RealHeld[];
  /** Handlers started and not yet settled. */
  readonly running: Running[];
  /** Invariant breaks seen inside handlers (thrown at the end of the step that caused them). */
  readonly violations: string[];
  /** Handler starts, to give every returned value its own identity. */
  runs: number;
  /** Counts one more occurrence of a lifecycle path (coverage of the interleavings). */
  readonly tally: (path: string) => void;
}

export function settle<T>(promise: Promise<T>): Promise<Settled<T>> {
  return promise.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
}

export function fail(message: string): never {
  throw new Error(message);
}

export function same(actual: unknown, expected: unknown, what: string): void {
  if (!isDeepStrictEqual(actual, expected))
    fail(`${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
}

export const describeError = (error: unknown) =>
  error instanceof Error ? `${error.name}: ${error.message}` : String(error);

/** The error text a failed receipt must carry for `error` (the guard's format: name, message, no stack). */
export const errorText = (error: Error) => `${error.name}: ${error.message}`;
