/** @module `resolveDashboardOptions`: the dashboard's options checked once, at mount, each error naming its option. */
import { randomBytes } from 'node:crypto';
import { ConfigError, InMemoryStore } from '@webhook-idempotency/core';
import { DEFAULT_STALE_AFTER_SECONDS } from '@webhook-idempotency/core/adapter';
import type { InboxOperatorStore } from '@webhook-idempotency/core/inbox';
import { InMemoryReceipts } from './memory-receipts';
import type { DashboardOptions, DashboardReceipts } from './types';

/** The options, checked, with their defaults. */
export interface DashboardConfig<Native = unknown> {
  readonly authorize: (request: Native) => boolean | Promise<boolean>;
  readonly receipts: DashboardReceipts;
  readonly inbox: InboxOperatorStore | undefined;
  readonly outbox: InboxOperatorStore | undefined;
  /** Without a trailing slash; `''` for a dashboard at the root. */
  readonly basePath: string;
  readonly readOnly: boolean;
  readonly staleAfterMs: number;
  /** An inbox delivery unfinished for longer than this after its receipt is stuck. */
  readonly stuckAfterMs: number;
  readonly secret: Buffer;
  readonly challenge: string | undefined;
  readonly onError: (error: unknown) => void;
}

const KNOWN = new Set([
  'authorize',
  'receipts',
  'inbox',
  'outbox',
  'basePath',
  'readOnly',
  'staleAfterSeconds',
  'stuckAfterSeconds',
  'secret',
  'challenge',
  'onError',
]);
const RECEIPTS_METHODS = [
  'status',
  'list',
  'find',
  'release',
  'forget',
  'countPurgeable',
  'purge',
  'activity',
] as const;
const INBOX_METHODS = ['list', 'find', 'redeliver', 'retryNow'] as const;
const MIN_SECRET_BYTES = 32;
/** The inbox's stuck threshold by default: the worker's poll and a few retries' backoff. */
const DEFAULT_STUCK_AFTER_SECONDS = 300;

const hasMethods = (value: unknown, names: readonly string[]): boolean =>
  typeof value === 'object' &&
  value !== null &&
  names.every((name) => typeof (value as Record<string, unknown>)[name] === 'function');

function resolveBasePath(value: unknown): string {
  if (typeof value !== 'string' || !value.startsWith('/'))
    throw new ConfigError(
      'basePath',
      `must be the path the dashboard is mounted at, starting with '/' (such as '/admin/webhooks'), got ${String(value)}`,
    );
  const path = value.replace(/\/+$/, '');
  if (
    !/^(\/[A-Za-z0-9._~!$&'()*+,;=:@-]+)*$/.test(path) ||
    path.split('/').some((s) => /^\.+$/.test(s))
  )
    throw new ConfigError(
      'basePath',
      `must be a plain path of unreserved characters (no query, no '..'), got ${JSON.stringify(value)}`,
    );
  return path;
}

function resolveSecret(value: unknown): Buffer {
  if (value === undefined) return randomBytes(MIN_SECRET_BYTES);
  const bytes =
    typeof value === 'string' ? Buffer.from(value, 'utf8') : Buffer.isBuffer(value) ? value : null;
  if (!bytes || bytes.length < MIN_SECRET_BYTES)
    throw new ConfigError(
      'secret',
      `must be a string or Buffer of at least ${MIN_SECRET_BYTES} bytes`,
    );
  return Buffer.from(bytes);
}

/**
 * Checks the dashboard's options once. Refuses a dashboard without `authorize`: there is no open
 * default.
 * @throws {ConfigError} naming the option that is missing or invalid, or an unknown one.
 */
export function resolveDashboardOptions<Native>(
  options: DashboardOptions<Native>,
): DashboardConfig<Native> {
  if (typeof options !== 'object' || options === null)
    throw new ConfigError(
      'options',
      'the dashboard takes an options object with authorize, receipts and basePath',
    );
  for (const name of Object.keys(options))
    if (!KNOWN.has(name)) throw new ConfigError(name, 'is not an option of the dashboard');
  const { authorize, receipts, inbox, outbox, readOnly = false, challenge, onError } = options;
  if (typeof authorize !== 'function')
    throw new ConfigError(
      'authorize',
      'is required: a function of the request that says whether it may see the dashboard (there is no open default)',
    );
  let admin: DashboardReceipts;
  if (receipts instanceof InMemoryStore) admin = new InMemoryReceipts(receipts);
  else if (hasMethods(receipts, RECEIPTS_METHODS)) admin = receipts as DashboardReceipts;
  else
    throw new ConfigError(
      'receipts',
      'must be a ReceiptsAdmin (new ReceiptsAdmin(db) from @webhook-idempotency/sql) or an InMemoryStore',
    );
  if (inbox !== undefined && !hasMethods(inbox, INBOX_METHODS))
    throw new ConfigError('inbox', 'must be an InboxStore (SqlInbox, InMemoryInbox)');
  // The outbox's table has the inbox's shape: the same operator role reads and repairs it.
  if (outbox !== undefined && !hasMethods(outbox, INBOX_METHODS))
    throw new ConfigError(
      'outbox',
      "must be an outbox store with the operator's role (SqlOutbox, or a SqlInbox on the outbox's table)",
    );
  if (typeof readOnly !== 'boolean') throw new ConfigError('readOnly', 'must be a boolean');
  const stale = options.staleAfterSeconds ?? DEFAULT_STALE_AFTER_SECONDS;
  if (typeof stale !== 'number' || !Number.isFinite(stale) || stale <= 0)
    throw new ConfigError('staleAfterSeconds', `must be a positive number, got ${String(stale)}`);
  const stuck = options.stuckAfterSeconds ?? DEFAULT_STUCK_AFTER_SECONDS;
  if (typeof stuck !== 'number' || !Number.isFinite(stuck) || stuck <= 0)
    throw new ConfigError('stuckAfterSeconds', `must be a positive number, got ${String(stuck)}`);
  if (challenge !== undefined && (typeof challenge !== 'string' || /[\r\n]/.test(challenge)))
    throw new ConfigError('challenge', 'must be a one-line string');
  if (onError !== undefined && typeof onError !== 'function')
    throw new ConfigError('onError', 'must be a function');
  return {
    authorize: (request) => authorize.call(options, request),
    receipts: admin,
    inbox,
    outbox,
    basePath: resolveBasePath(options.basePath),
    readOnly,
    staleAfterMs: stale * 1000,
    stuckAfterMs: stuck * 1000,
    secret: resolveSecret(options.secret),
    challenge,
    onError: onError ?? (() => undefined),
  };
}
