/** @module One check for the options that are an amount of time: a positive, finite number of a unit. */
import { ConfigError } from './errors';

/**
 * `value` as a positive, finite number of `unit` (`seconds`, `milliseconds`), for an option that
 * is an amount of time.
 * @throws {ConfigError} naming `option`, the unit and the value given.
 */
export function positiveAmount(option: string, value: unknown, unit: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0)
    throw new ConfigError(option, `must be a positive number of ${unit}, got ${String(value)}`);
  return value;
}
