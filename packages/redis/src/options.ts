/** @module The options of {@link RedisStore}, checked and resolved once. */
import { ConfigError, SECOND } from '@webhook-idempotency/core';
import { resolvePrefix } from './keys';

/** Options of `RedisStore`. */
export interface RedisStoreOptions {
  /**
   * Put before every receipt key (default `'webhook_receipts:'`): `prefix{provider NUL
   * externalId}`. No `{` or `}` (the braces after it are the receipt's cluster hash tag). Give
   * each application or environment sharing one Redis its own.
   */
  readonly prefix?: string;
  /**
   * Finished (`completed` and `failed`) receipts expire this many seconds after they finished:
   * Redis deletes them itself, no `purge()` needed. A `processing` receipt never expires, and a
   * take-over removes the expiry of a failed one. A duplicate that arrives after its receipt
   * expired runs the handler again: keep receipts at least as long as the provider redelivers
   * (docs/providers.md). Default (and `Infinity`): no expiry; delete them with `guard.purge()` on
   * a schedule.
   */
  readonly retentionSeconds?: number;
  /**
   * The longest any store call waits for Redis, in milliseconds (default 5,000): past it the
   * call fails and the guard answers a store failure (503) instead of hanging while the client
   * reconnects.
   */
  readonly commandTimeoutMs?: number;
}

/** {@link RedisStoreOptions} resolved. */
export interface ResolvedRedisOptions {
  readonly prefix: string;
  /** Milliseconds as the scripts take it (`PEXPIRE`), or `''` for no expiry. */
  readonly retentionMs: string;
  readonly commandTimeoutMs: number;
}

/** Default of {@link RedisStoreOptions.commandTimeoutMs}. */
export const DEFAULT_COMMAND_TIMEOUT_MS = 5_000;

const positive = (value: unknown): value is number =>
  typeof value === 'number' && Number.isFinite(value) && value > 0;

/**
 * Checks and resolves the options.
 * @throws {ConfigError} naming the option that is wrong.
 */
export function resolveRedisOptions(options: RedisStoreOptions = {}): ResolvedRedisOptions {
  if (typeof options !== 'object' || options === null)
    throw new ConfigError('options', `must be an object, got ${String(options)}`);
  const { retentionSeconds, commandTimeoutMs = DEFAULT_COMMAND_TIMEOUT_MS } = options;
  const expires = retentionSeconds !== undefined && retentionSeconds !== Number.POSITIVE_INFINITY;
  if (expires && !(positive(retentionSeconds) && retentionSeconds * SECOND >= 1))
    throw new ConfigError(
      'retentionSeconds',
      `must be a positive number of seconds (at least 0.001) or Infinity, got ${String(retentionSeconds)}`,
    );
  if (!positive(commandTimeoutMs))
    throw new ConfigError(
      'commandTimeoutMs',
      `must be a positive number of milliseconds, got ${String(commandTimeoutMs)}`,
    );
  return {
    prefix: resolvePrefix(options.prefix),
    retentionMs: expires ? String(Math.round(retentionSeconds * SECOND)) : '',
    commandTimeoutMs,
  };
}
