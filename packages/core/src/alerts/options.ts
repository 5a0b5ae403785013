/** @module The alert watcher's options, checked once, with their defaults. */
import { ConfigError } from '../errors';
import { numberOption } from '../inbox/run';
import type { InboxStore } from '../inbox/inbox-store';
import type { AlertWatcherOptions, Notifier, ReceiptsStatusSource, WatcherEvent } from './types';

const MINUTE = 60_000;
const KNOWN = new Set([
  'inbox',
  'receipts',
  'notify',
  'intervalMs',
  'stuckAfterMs',
  'stuckAfterMsByProvider',
  'deadWithinMs',
  'staleAfterMs',
  'failureRate',
  'slowAnswers',
  'sendTimeoutMs',
  'onEvent',
  'now',
]);

/** The watcher's settings. */
export interface WatcherSettings {
  readonly inbox: InboxStore | undefined;
  readonly receipts: ReceiptsStatusSource | undefined;
  readonly notifiers: readonly Notifier[];
  readonly intervalMs: number;
  readonly stuckAfterMs: number;
  readonly stuckAfterMsByProvider: Readonly<Record<string, number>>;
  readonly deadWithinMs: number;
  readonly staleAfterMs: number;
  readonly failureRate: { above: number; windowMs: number; minFinished: number } | null;
  readonly slowAnswers: { p95AboveMs: number; windowMs: number; minSampled: number } | null;
  readonly sendTimeoutMs: number;
  readonly emit: (event: WatcherEvent) => void;
  readonly now: () => number;
}

const has = (value: unknown, method: string): boolean =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as Record<string, unknown>)[method] === 'function';

function notifiersOf(notify: unknown): Notifier[] {
  const list = Array.isArray(notify) ? notify : [notify];
  if (list.length === 0 || list.some((n) => typeof n !== 'function'))
    throw new ConfigError(
      'notify',
      'must be a notifier function or an array of them (slackWebhook(…), signedWebhook(…), your own)',
    );
  return list as Notifier[];
}

function ruleOf<T extends object>(
  name: string,
  value: T | false | undefined,
  read: (rule: T) => Record<string, number>,
): Record<string, number> | null {
  if (value === false) return null;
  if (value !== undefined && (typeof value !== 'object' || value === null))
    throw new ConfigError(name, 'must be an object of thresholds, or false');
  return read((value ?? {}) as T);
}

/** @throws {ConfigError} naming the first invalid, missing or unknown option. */
export function resolveWatcherOptions(options: AlertWatcherOptions): WatcherSettings {
  if (typeof options !== 'object' || options === null)
    throw new ConfigError('options', 'must be an object with notify and inbox or receipts');
  const unknown = Object.keys(options).find((name) => !KNOWN.has(name));
  if (unknown !== undefined)
    throw new ConfigError(unknown, 'is not an option of the alert watcher');
  const { inbox, receipts, onEvent, now = Date.now } = options;
  if (inbox !== undefined && !has(inbox, 'backlog'))
    throw new ConfigError('inbox', 'must be an InboxStore (SqlInbox, InMemoryInbox)');
  if (receipts !== undefined && !has(receipts, 'status'))
    throw new ConfigError(
      'receipts',
      'must have status(): new ReceiptsAdmin(db) from @webhook-idempotency/sql',
    );
  if (inbox === undefined && receipts === undefined)
    throw new ConfigError('inbox', 'or receipts is required: the watcher needs something to watch');
  if (onEvent !== undefined && typeof onEvent !== 'function')
    throw new ConfigError('onEvent', 'must be a function');
  if (typeof now !== 'function') throw new ConfigError('now', 'must be a function');
  const ms = (name: string, value: unknown, fallback: number, min = 1) =>
    numberOption(name, value ?? fallback, min);
  const byProvider = options.stuckAfterMsByProvider ?? {};
  if (typeof byProvider !== 'object' || byProvider === null)
    throw new ConfigError('stuckAfterMsByProvider', 'must be an object of provider → milliseconds');
  for (const [provider, value] of Object.entries(byProvider))
    ms(`stuckAfterMsByProvider.${provider}`, value, 0);
  return {
    inbox,
    receipts,
    notifiers: notifiersOf(options.notify),
    intervalMs: ms('intervalMs', options.intervalMs, MINUTE, 1000),
    stuckAfterMs: ms('stuckAfterMs', options.stuckAfterMs, 5 * MINUTE),
    stuckAfterMsByProvider: { ...byProvider },
    deadWithinMs: ms('deadWithinMs', options.deadWithinMs, 15 * MINUTE),
    staleAfterMs: ms('staleAfterMs', options.staleAfterMs, 5 * MINUTE),
    failureRate: ruleOf('failureRate', options.failureRate, (r) => ({
      above: numberOption('failureRate.above', r.above ?? 0.1, 0, false, 1),
      windowMs: ms('failureRate.windowMs', r.windowMs, 15 * MINUTE),
      minFinished: numberOption('failureRate.minFinished', r.minFinished ?? 20, 1, true),
    })) as WatcherSettings['failureRate'],
    slowAnswers: ruleOf('slowAnswers', options.slowAnswers, (r) => ({
      p95AboveMs: ms('slowAnswers.p95AboveMs', r.p95AboveMs, 1000),
      windowMs: ms('slowAnswers.windowMs', r.windowMs, 15 * MINUTE),
      minSampled: numberOption('slowAnswers.minSampled', r.minSampled ?? 20, 1, true),
    })) as WatcherSettings['slowAnswers'],
    sendTimeoutMs: ms('sendTimeoutMs', options.sendTimeoutMs, 10_000),
    emit: (event) => {
      try {
        onEvent?.(event);
      } catch {
        // An observer never changes what the watcher does.
      }
    },
    now,
  };
}
