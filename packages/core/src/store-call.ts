/** @module One store call: what it throws becomes a `StoreError` (the driver's error as cause), reported on a trace. */
import { StoreError } from './errors';
import type { Trace } from './trace';

/** Runs `fn`, a call of the store named `operation`; a failure is reported on `trace` as `store-error`. */
export async function storeCall<T>(
  operation: string,
  trace: Pick<Trace, 'now' | 'storeError'>,
  fn: () => Promise<T>,
): Promise<T> {
  const started = trace.now();
  try {
    return await fn();
  } catch (error) {
    if (error instanceof StoreError) throw error;
    trace.storeError(operation, error, started);
    throw new StoreError(operation, error);
  }
}
