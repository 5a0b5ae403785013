/** @module Ending a run early with an AbortSignal: the reason it ends with, and a handler run without a transaction raced against it. */
import type { RunContext } from './types';

/** Wrappers for abort reasons that are no Error, so one signal always ends a run with one error. */
const wrappedReasons = new WeakMap<AbortSignal, Error>();

/** What an aborted `signal` ends a run with: its reason when that is an Error, else one `AbortError` for it. */
export function abortReason(signal: AbortSignal): Error {
  if (signal.reason instanceof Error) return signal.reason;
  let wrapped = wrappedReasons.get(signal);
  if (!wrapped) {
    wrapped = new DOMException(String(signal.reason ?? 'The run was ended'), 'AbortError');
    wrappedReasons.set(signal, wrapped);
  }
  return wrapped;
}

/** What {@link runUntilAborted} settles: a claim ticket, by the members it uses. */
interface Settles<T, Tx> {
  readonly context: RunContext<Tx>;
  complete(value: T): Promise<void>;
  fail(error: unknown): Promise<void>;
}

/**
 * Runs a handler without a transaction: resolves with its result (the caller records it), or marks
 * the claim failed and rethrows its error. If `signal` aborts first, it rejects with the signal's
 * reason at once and leaves the claim to the handler, should it still settle: its result or its
 * failure is then recorded in the background, fenced by its attempt (a run that lost its claim
 * records nothing).
 */
export async function runUntilAborted<T, Tx>(
  claim: Settles<T, Tx>,
  handler: (context: RunContext<Tx>) => T | Promise<T>,
  signal: AbortSignal | undefined,
): Promise<T> {
  if (!signal) {
    // Nothing can end it early: the handler's own result or failure, without a race to set up.
    try {
      return await handler(claim.context);
    } catch (error) {
      await claim.fail(error);
      throw error;
    }
  }
  if (signal.aborted) {
    // Ended before it began: the handler never runs, and the receipt is free for the next run.
    await claim.fail(abortReason(signal));
    throw abortReason(signal);
  }
  let work: Promise<T>;
  try {
    work = Promise.resolve(handler(claim.context));
  } catch (error) {
    work = Promise.reject(error);
  }
  let onAbort!: () => void;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(abortReason(signal));
    signal.addEventListener('abort', onAbort, { once: true });
  });
  const handed = work.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  try {
    const result = await Promise.race([handed, aborted]);
    if ('error' in result) {
      await claim.fail(result.error);
      throw result.error;
    }
    return result.value;
  } catch (error) {
    // Ended by the signal: the handler's result or failure, should it still settle, is recorded.
    if (signal.aborted && error === abortReason(signal))
      void work.then(
        (value) => claim.complete(value).catch(() => undefined),
        (failure: unknown) => claim.fail(failure),
      );
    throw error;
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/**
 * `work` unless `signal` aborts first; then rejects at once with `reasonOf(signal)` (by default
 * the signal's reason when it is an Error, else an `AbortError` for it). The work is left to settle unobserved: a rejection it ends with later is
 * caught, never reported as unhandled.
 */
export function raceAbort<T>(
  work: Promise<T>,
  signal: AbortSignal | undefined,
  reasonOf: (signal: AbortSignal) => unknown = abortReason,
): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) {
    work.catch(() => undefined);
    return Promise.reject(reasonOf(signal));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      work.catch(() => undefined);
      reject(reasonOf(signal));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
