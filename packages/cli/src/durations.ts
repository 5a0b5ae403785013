/** @module Durations on the command line (`90s`, `5m`, `24h`, `7d`) and in its output (`12m`, `2.1s`). */
import { formatAge } from '@webhook-idempotency/core/operations';
import { InvalidArgumentError } from 'commander';

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/;

/** `300`, `300s`, `5m`, `24h`, `7d` → milliseconds (a bare number is seconds); for commander. */
export function parseDuration(value: string): number {
  const match = DURATION.exec(value.trim());
  const ms = match ? Number(match[1]) * UNITS[match[2] ?? 's']! : Number.NaN;
  if (!Number.isFinite(ms) || ms <= 0)
    throw new InvalidArgumentError('expected a positive duration such as 90s, 5m, 24h or 7d.');
  return ms;
}

/** A whole number from `min` to `max`; for commander. */
export const parseWhole =
  (min: number, max = Number.MAX_SAFE_INTEGER) =>
  (value: string): number => {
    const n = Number(value);
    if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min || n > max)
      throw new InvalidArgumentError(
        max === Number.MAX_SAFE_INTEGER
          ? `expected a whole number of at least ${min}.`
          : `expected a whole number from ${min} to ${max}.`,
      );
    return n;
  };

export { formatAge };

/** A window as given on the command line, when it is whole: `7d`, `24h`, `90m`; else as an age. */
export function formatSpan(ms: number): string {
  if (ms >= 2 * 86_400_000 && ms % 86_400_000 === 0) return `${ms / 86_400_000}d`;
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  return formatAge(ms);
}

/** A handler time: `85ms`, `2.1s`, then as an age (`3m`). */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(Math.floor(ms / 100) / 10).toFixed(1)}s`;
  return formatAge(ms);
}
