/**
 * @module Renamed options: an option's new name and its old one, accepted for one minor version as a
 * deprecated alias, resolved in one place so every option renamed by the vocabulary reads alike.
 */
import { DEFAULT_PURGE_CHUNK_SIZE } from './constants';
import { ConfigError } from './errors';

/**
 * The value of the option renamed from `oldName` to `newName` in `options`: the new name's when
 * given, else the old name's (`undefined` when neither is). Both given with different values is a
 * {@link ConfigError} naming both: which one was meant cannot be guessed.
 *
 * @throws {ConfigError} for both names given with different values.
 */
export function renamedOption<T extends object, N extends keyof T, O extends keyof T>(
  options: T,
  newName: N,
  oldName: O,
  prefix = '',
): T[N] | T[O] | undefined {
  const value = options[newName];
  const old = options[oldName];
  if (value === undefined) return old;
  if (old !== undefined && !Object.is(old, value))
    throw new ConfigError(
      `${prefix}${String(newName)}`,
      `and its deprecated name "${prefix}${String(oldName)}" were both given, with different values (${String(value)} and ${String(old)}): give only "${prefix}${String(newName)}"`,
    );
  return value;
}

/**
 * The name the caller gave a renamed option under: `oldName` when only the deprecated one was given,
 * else `newName`, with `prefix`. A refused value is reported under it, so the message names what
 * the caller wrote.
 */
export function givenName<T extends object>(
  options: T,
  newName: keyof T,
  oldName: keyof T,
  prefix = '',
): string {
  const given =
    options[newName] === undefined && options[oldName] !== undefined ? oldName : newName;
  return `${prefix}${String(given)}`;
}

/**
 * The rows one purge statement deletes, as a purge input asks (`chunkSize`, or its deprecated name
 * `batchSize`), else `DEFAULT_PURGE_CHUNK_SIZE` (1000). Not range-checked: each store checks it
 * against its own bounds.
 *
 * @throws {ConfigError} for both names given with different values.
 */
export function purgeChunkSize(input: {
  readonly chunkSize?: number | undefined;
  readonly batchSize?: number | undefined;
}): number {
  return renamedOption(input, 'chunkSize', 'batchSize') ?? DEFAULT_PURGE_CHUNK_SIZE;
}
