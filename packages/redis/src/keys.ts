/**
 * @module Where a receipt lives: one Redis hash per (provider, external id) under the store's
 * prefix, its whole identity inside a hash tag so that a Redis Cluster keeps every key of one
 * receipt in one slot, and the SCAN patterns that find a prefix's (or one provider's) receipts.
 */
import { ConfigError, type KeyLike } from '@webhook-idempotency/core';

/** The prefix of every receipt key when none is given. */
export const DEFAULT_PREFIX = 'webhook_receipts:';

/** The longest prefix accepted, in characters: a key is read on every delivery. */
const MAX_PREFIX_LENGTH = 200;

/**
 * Checks a key prefix: a non-empty string without `{` or `}` (those would move the hash tag that
 * keeps one receipt's keys in one cluster slot) and without control characters.
 * @throws {ConfigError} naming `prefix`.
 */
export function resolvePrefix(prefix: unknown = DEFAULT_PREFIX): string {
  if (typeof prefix !== 'string' || prefix === '')
    throw new ConfigError('prefix', `must be a non-empty string, got ${String(prefix)}`);
  if (prefix.length > MAX_PREFIX_LENGTH)
    throw new ConfigError(
      'prefix',
      `is ${prefix.length} characters; the limit is ${MAX_PREFIX_LENGTH}`,
    );
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[{}\u0000-\u001f\u007f]/.test(prefix))
    throw new ConfigError(
      'prefix',
      'must not contain "{", "}" or control characters (the braces are the hash tag that keeps a receipt in one cluster slot)',
    );
  return prefix;
}

/**
 * The key of one receipt: `prefix{provider NUL externalId}`. Provider names and external ids never
 * contain NUL (`RequestKey` refuses it), so the pair is unambiguous; the braces make the pair the
 * hash tag, so that a cluster hashes exactly it. An id with a `}` ends the tag early: still the
 * same slot for every key of that receipt, which is all the store needs.
 */
export const receiptKey = (prefix: string, key: KeyLike): string =>
  `${prefix}{${key.provider}\u0000${key.externalId}}`;

/** `text` with the characters SCAN's MATCH treats as a pattern (`* ? [ ] \`) escaped. */
const globEscape = (text: string): string => text.replace(/[*?[\]\\]/g, (c) => `\\${c}`);

/** The MATCH pattern of every receipt under `prefix`, or only `provider`'s. */
export const scanPattern = (prefix: string, provider?: string): string =>
  provider === undefined
    ? `${globEscape(prefix)}{*`
    : `${globEscape(prefix)}{${globEscape(provider)}\u0000*`;
