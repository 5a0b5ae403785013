/**
 * @module The client the store sends through (a `DynamoDBClient`, or a `DynamoDBDocumentClient`
 * made from one), and every request bounded by the store's `requestTimeoutMs`, the SDK's own
 * retries included, so that an unreachable or hung server is a prompt failure, never a hang.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ConfigError } from '@webhook-idempotency/core';

/**
 * What the store takes: a `DynamoDBClient` (`@aws-sdk/client-dynamodb`), or a
 * `DynamoDBDocumentClient` (`@aws-sdk/lib-dynamodb`) made from one. The store sends its own
 * requests in DynamoDB's attribute-value form through either; it never configures or destroys it.
 */
export type DynamoDBClientLike =
  | DynamoDBClient
  | {
      readonly config: DynamoDBClient['config'];
      send(command: never, options?: never): Promise<unknown>;
    };

/** DynamoDB did not answer within the store's `requestTimeoutMs`. The guard reports it as a `StoreError`. */
export class DynamoDBRequestTimeout extends Error {
  constructor(operation: string, timeoutMs: number) {
    super(`DynamoDB did not answer ${operation} within ${timeoutMs} ms`);
    this.name = 'DynamoDBRequestTimeout';
  }
}

/**
 * The client as the store sends through it.
 * @throws {ConfigError} naming `client` when it is no DynamoDB client of the AWS SDK v3.
 */
export function senderFor(client: DynamoDBClientLike): DynamoDBClient {
  const candidate = client as Partial<DynamoDBClient> | null;
  if (
    typeof candidate !== 'object' ||
    candidate === null ||
    typeof candidate.send !== 'function' ||
    typeof candidate.config !== 'object' ||
    candidate.config === null ||
    typeof candidate.config.region !== 'function'
  )
    throw new ConfigError(
      'client',
      'must be a DynamoDBClient of @aws-sdk/client-dynamodb (or a DynamoDBDocumentClient of @aws-sdk/lib-dynamodb made from one)',
    );
  return client as DynamoDBClient;
}

/**
 * Runs `work` (one SDK request, given the signal to abort it with), rejected with
 * {@link DynamoDBRequestTimeout} after `timeoutMs`, or with `signal`'s reason when it aborts; the
 * request is aborted then. A request already sent may still run on the server: every write of the
 * store is conditional, so a late one changes nothing it should not.
 */
export function bounded<T>(
  operation: string,
  timeoutMs: number,
  work: (abortSignal: AbortSignal) => Promise<T>,
  signal?: AbortSignal,
): Promise<T> {
  const controller = new AbortController();
  return new Promise<T>((resolve, reject) => {
    const settle = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    };
    const stop = (error: unknown) => {
      settle();
      controller.abort(error);
      reject(error);
    };
    const onAbort = () => stop(signal?.reason);
    // The SDK may sit in a retry's back-off without looking at the signal: the timer decides.
    const timer = setTimeout(
      () => stop(new DynamoDBRequestTimeout(operation, timeoutMs)),
      timeoutMs,
    );
    if (signal?.aborted) return onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    let running: Promise<T>;
    try {
      running = work(controller.signal);
    } catch (error) {
      return stop(error);
    }
    running.then(
      (value) => {
        settle();
        resolve(value);
      },
      (error: unknown) => {
        if (controller.signal.aborted) return;
        settle();
        reject(error);
      },
    );
  });
}

/** True when `error` is the SDK's exception named `name` (by name: two copies of the SDK may be installed). */
export const isException = (error: unknown, name: string): boolean =>
  error instanceof Error && error.name === name;
