/**
 * @module `inboxWorker(options)`: a Lambda function (on an EventBridge schedule, say) that drains
 * the inbox in rounds, bounded by the function's remaining time.
 */
import { ConfigError } from '@webhook-idempotency/core';
import { createInboxWorker, type InboxWorkerOptions } from '@webhook-idempotency/core/inbox';
import type { Context } from 'aws-lambda';
import { resolveTimeMargin, timeLeft } from './time';

/** Options of {@link inboxWorker}: the inbox worker's, plus the time kept back at the end. */
export interface LambdaInboxWorkerOptions<Tx = never> extends InboxWorkerOptions<Tx> {
  /**
   * Milliseconds of the function's remaining time kept back: no round starts unless a whole one
   * (up to `visibilityTimeoutSeconds`) fits before them, and what still runs then is given back
   * to the inbox. Defaults to 1000.
   */
  timeMarginMs?: number;
}

/** What one invocation of the worker function did. */
export interface InboxDrainResult {
  /** Deliveries claimed (and processed, retried or buried) in this invocation. */
  readonly claimed: number;
  /** Claims made; the last of an emptied inbox claims nothing. */
  readonly rounds: number;
  /** `'empty'`: nothing was due any more; `'time'`: the next round would not have fit in the time left. */
  readonly stoppedBy: 'empty' | 'time';
}

/** The inbox worker's default lease, in seconds (`visibilityTimeoutSeconds`). */
const DEFAULT_VISIBILITY_SECONDS = 60;

/**
 * A Lambda handler that drains the inbox: rounds of `runOnce()` (a claim of up to `concurrency`
 * deliveries, each run through the receipts exactly once) while deliveries are due and a whole
 * round fits in the function's remaining time. A round takes at most the lease
 * (`visibilityTimeoutSeconds`: every handler's deadline is 80 % of it), so set the function's
 * timeout above it. Should a round overrun anyway, the worker is stopped `timeMarginMs` before
 * the function's timeout and what is still in flight goes back to the inbox for the next run.
 * Without a context (a direct call in a test) it drains until nothing is due.
 * @throws {ConfigError} at construction for an invalid option; at invocation, when the
 *   function's remaining time cannot hold a single round.
 * @example
 * export const handler = inboxWorker({ inbox, store, handlers: { stripe: book }, visibilityTimeoutSeconds: 30 });
 * @see docs/adapters/lambda.md
 */
export function inboxWorker<Tx = never>(
  options: LambdaInboxWorkerOptions<Tx>,
): (event: unknown, context: Context) => Promise<InboxDrainResult> {
  const { timeMarginMs, ...workerOptions } = options ?? {};
  const marginMs = resolveTimeMargin(timeMarginMs);
  const worker = createInboxWorker(workerOptions as InboxWorkerOptions<Tx>);
  const roundMs = (workerOptions.visibilityTimeoutSeconds ?? DEFAULT_VISIBILITY_SECONDS) * 1000;
  return async function drainInbox(_event, context) {
    const left = timeLeft(context, marginMs);
    if (left !== undefined && left < roundMs)
      throw new ConfigError(
        'visibilityTimeoutSeconds',
        `a round takes up to ${roundMs} ms and the function had ${left} ms left (after timeMarginMs): raise the function's timeout or lower visibilityTimeoutSeconds`,
      );
    const started = Date.now();
    // A round that overruns is ended before Lambda's timeout: its deliveries go back at once.
    const timer =
      left === undefined ? undefined : setTimeout(() => void worker.stop({ timeoutMs: 0 }), left);
    let claimed = 0;
    let rounds = 0;
    try {
      for (;;) {
        if (left !== undefined && left - (Date.now() - started) < roundMs)
          return { claimed, rounds, stoppedBy: 'time' };
        rounds++;
        const taken = await worker.runOnce();
        claimed += taken;
        if (taken === 0) return { claimed, rounds, stoppedBy: 'empty' };
      }
    } finally {
      clearTimeout(timer);
    }
  };
}
