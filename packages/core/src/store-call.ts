/**
 * @module What a failed store call becomes: a `StoreError` (the driver's error as its cause),
 * reported on a trace. Callers await the store themselves, one `await` per call, and hand what it
 * threw (synchronously or as a rejection) to {@link storeFailure}: no wrapper closure or extra
 * promise per call.
 */
import { StoreError } from './errors';
import type { Trace } from './trace';

/**
 * The error to throw for a store call named `operation` that failed with `error` (started at
 * `since`): a `StoreError` passes as it is, anything else is reported on `trace` as
 * `store-error` and wrapped.
 */
export function storeFailure(
  operation: string,
  error: unknown,
  trace: Pick<Trace, 'storeError'>,
  since: number,
): StoreError {
  if (error instanceof StoreError) return error;
  trace.storeError(operation, error, since);
  return new StoreError(operation, error);
}
