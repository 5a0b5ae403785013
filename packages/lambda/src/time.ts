/** @module The function's remaining time, as the bound of what the adapter waits for. */
import { ConfigError } from '@webhook-idempotency/core';
import type { Context } from 'aws-lambda';

/** Default of `timeMarginMs`: what the guard keeps back to write the receipt before Lambda's timeout. */
export const DEFAULT_TIME_MARGIN_MS = 1000;

/** The `timeMarginMs` option, checked. */
export function resolveTimeMargin(value: unknown): number {
  if (value === undefined) return DEFAULT_TIME_MARGIN_MS;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0)
    throw new ConfigError(
      'timeMarginMs',
      `must be a whole number of milliseconds, 0 or more, got ${String(value)}`,
    );
  return value;
}

/**
 * Milliseconds left for the work, `marginMs` kept back: `undefined` without a Lambda context to
 * ask (a direct call in a test), never below 0.
 */
export function timeLeft(context: Context | undefined, marginMs: number): number | undefined {
  if (typeof context?.getRemainingTimeInMillis !== 'function') return undefined;
  return Math.max(0, context.getRemainingTimeInMillis() - marginMs);
}
