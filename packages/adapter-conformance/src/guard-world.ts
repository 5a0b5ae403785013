/**
 * @module The guard of one test and what it saw, shared by the node:http and Web-standard
 * harnesses: the guard's events and the app's reports, each with a wait for the next ones, and the
 * options every case's app starts with.
 */
import { mergeOptions } from '@webhook-idempotency/core/adapter';
import {
  IdempotencyGuard,
  type GuardEvent,
  type IdempotencyOptions,
  type Store,
} from '@webhook-idempotency/core';
import type { NativeLike, Observed } from './types';

/** The provider every case's receipts use. */
export const PROVIDER = 'conformance';

/** What a harness takes from {@link guardWorld}. */
export interface GuardWorld {
  readonly guard: IdempotencyGuard<unknown>;
  /** How many claims the guard has made. */
  claims(): number;
  /** Hands the app's report of one answered request to the waiters. */
  observe(observed: Observed): void;
  /** Resolves, once `wanted` requests are reported, with every report so far, in order. */
  observed(wanted: number): Promise<readonly Observed[]>;
  /** Resolves once `wanted` events of `type` have been emitted by the guard. */
  events(type: GuardEvent['type'], wanted?: number): Promise<void>;
}

/** A fresh guard on `store`, recording its events and the app's reports. */
export function guardWorld(store: Store<unknown>): GuardWorld {
  const seen: GuardEvent[] = [];
  const waiters: Array<() => void> = [];
  const reports: Observed[] = [];
  const reportWaiters: Array<() => void> = [];
  const guard = new IdempotencyGuard(store, {
    onEvent(event) {
      seen.push(event);
      for (const wake of waiters.splice(0)) wake();
    },
  });
  /** Resolves with what `take()` gives once it gives something, asked again after each wake-up. */
  const until = <T>(list: Array<() => void>, take: () => T | undefined) =>
    new Promise<T>((resolve) => {
      const check = () => {
        const value = take();
        if (value === undefined) list.push(check);
        else resolve(value);
      };
      check();
    });
  return {
    guard,
    claims: () => seen.filter((event) => event.type === 'claimed').length,
    observe(observed) {
      reports.push(observed);
      for (const wake of reportWaiters.splice(0)) wake();
    },
    observed: (wanted) =>
      until(reportWaiters, () => (reports.length >= wanted ? [...reports] : undefined)),
    async events(type, wanted = 1) {
      const count = () => seen.filter((event) => event.type === type).length;
      await until(waiters, () => (count() >= wanted ? true : undefined));
    },
  };
}

/**
 * The options a case's app starts with: `options` merged over `{ guard, provider, key: X-Event-Id
 * header, keyDescription: 'X-Event-Id header' }`.
 */
export function caseOptions(
  guard: IdempotencyGuard<unknown>,
  options: Partial<IdempotencyOptions<NativeLike>>,
): IdempotencyOptions<NativeLike> {
  const defaults: IdempotencyOptions<NativeLike> = {
    guard,
    provider: PROVIDER,
    key: (native) => native.headers['x-event-id'] as string | undefined,
    keyDescription: 'X-Event-Id header',
  };
  return mergeOptions(defaults, options);
}
