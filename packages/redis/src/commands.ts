/**
 * @module Running the store's scripts: by SHA-1 (EVALSHA), by source when the server does not have
 * it (a restarted server has an empty script cache: NOSCRIPT), every call bounded by the store's
 * `commandTimeoutMs` so that an unreachable server is a prompt failure, never a hang.
 */
import type { Commander } from './connection';
import type { Script } from './scripts';

/** Redis did not answer within the store's `commandTimeoutMs`. The guard reports it as a `StoreError`. */
export class RedisCommandTimeout extends Error {
  constructor(operation: string, timeoutMs: number) {
    super(`Redis did not answer ${operation} within ${timeoutMs} ms`);
    this.name = 'RedisCommandTimeout';
  }
}

/**
 * Runs `work` with a deadline: rejects with {@link RedisCommandTimeout} after `timeoutMs`, and
 * aborts the signal it passed, so that a client that still holds the command unsent (node-redis's
 * offline queue) drops it. A command already sent may still run on the server later: every script
 * is fenced, so a late claim or write can only leave a receipt that a later delivery settles.
 */
export function bounded<T>(
  operation: string,
  timeoutMs: number,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      controller.abort();
      reject(new RedisCommandTimeout(operation, timeoutMs));
    }, timeoutMs);
    let running: Promise<T>;
    try {
      running = work(controller.signal);
    } catch (error) {
      clearTimeout(timer);
      reject(error);
      return;
    }
    running.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

const isNoScript = (error: unknown): boolean =>
  error instanceof Error && error.message.startsWith('NOSCRIPT');

/** Runs `script` on `key` with `argv` (EVALSHA, then EVAL on NOSCRIPT), within `signal`. */
export function evalScript(
  commander: Commander,
  script: Script,
  key: string,
  argv: readonly string[],
  signal: AbortSignal,
): Promise<unknown> {
  return evalOnKeys(commander, script, [key], argv, signal);
}

/**
 * Runs `script` on `keys` (routed by the first: on a cluster, all of them must share its slot) with
 * `argv`, as {@link evalScript} does.
 */
export async function evalOnKeys(
  commander: Commander,
  script: Script,
  keys: readonly [string, ...string[]],
  argv: readonly string[],
  signal: AbortSignal,
): Promise<unknown> {
  const tail = [String(keys.length), ...keys, ...argv];
  try {
    return await commander.send(keys[0], ['EVALSHA', script.sha, ...tail], signal);
  } catch (error) {
    if (!isNoScript(error)) throw error;
    return commander.send(keys[0], ['EVAL', script.source, ...tail], signal);
  }
}
