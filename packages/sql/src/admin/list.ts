/**
 * @module The statement of `ReceiptsAdmin.list` from its options: each filter checked (a bad one is
 * a `ConfigError` naming it) and turned into a condition of fixed fragments with its values bound.
 * Every condition compares the columns as stored, so the index on (claimed_at, provider,
 * external_id) serves the listing's order and its pages.
 */
import { ConfigError, ReceiptStatus } from '@webhook-idempotency/core';
import { requireCount, requireDate, requireMs, requireText } from './checks';
import type { adminStatements } from './queries';
import type { ListOptions, ReceiptCursor } from './types';
import type { DialectSpec } from '../dialects';
import { storableRange } from '../inbox/queries';

const RECEIPT_STATUSES: readonly ReceiptStatus[] = Object.values(ReceiptStatus);
const DEFAULT_LIST_LIMIT = 50;
const MAX_LIST_LIMIT = 10_000;
/** The claim time as a listing returns it in `claimedAtText`: ISO 8601, UTC, six fractional digits. */
const EXACT_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/** A listing's statement and its bound values. */
export interface ListStatement {
  readonly sql: string;
  readonly params: readonly unknown[];
}

/** The statuses asked for, checked. */
function statusesOf(status: NonNullable<ListOptions['status']>): readonly unknown[] {
  const statuses: readonly unknown[] = Array.isArray(status) ? status : [status];
  const unknown = statuses.filter((s) => !RECEIPT_STATUSES.includes(s as ReceiptStatus));
  if (statuses.length === 0 || unknown.length > 0)
    throw new ConfigError(
      'status',
      `must be one or more of ${RECEIPT_STATUSES.join(', ')}, got ${JSON.stringify(unknown.length ? unknown : statuses)}`,
    );
  return statuses;
}

/**
 * The cursor's claim time exactly as the column holds it: its `claimedAtText` (what a listing
 * returns), or else its `claimedAt` to the millisecond.
 */
export function cursorTime(after: Partial<ReceiptCursor>): string {
  const { claimedAtText } = after;
  if (claimedAtText === undefined) {
    const ms = requireDate('after.claimedAt', after.claimedAt);
    return `${new Date(ms).toISOString().slice(0, 23)}000Z`;
  }
  if (
    typeof claimedAtText !== 'string' ||
    !EXACT_TIME.test(claimedAtText) ||
    Number.isNaN(Date.parse(`${claimedAtText.slice(0, 23)}Z`))
  )
    throw new ConfigError(
      'after.claimedAtText',
      `must be a claim time as a listing returns it (2026-12-01T21:59:14.601000Z), got ${JSON.stringify(claimedAtText)}`,
    );
  return claimedAtText;
}

/** The filters' conditions and values, in the order the statement binds them. */
function filtersOf(admin: ReturnType<typeof adminStatements>, options: ListOptions) {
  const where: string[] = [];
  const params: unknown[] = [];
  const add = (condition: string, ...values: unknown[]) => {
    where.push(condition);
    params.push(...values);
  };
  if (options.status !== undefined) {
    const statuses = statusesOf(options.status);
    add(`status IN (${statuses.map(() => '?').join(', ')})`, ...statuses);
  }
  if (options.provider !== undefined)
    add('provider = ?', requireText('provider', options.provider));
  if (options.externalId !== undefined)
    add('external_id = ?', requireText('externalId', options.externalId));
  const { from, before } = storableRange(
    options.claimedFrom === undefined ? undefined : requireDate('claimedFrom', options.claimedFrom),
    options.claimedBefore === undefined
      ? undefined
      : requireDate('claimedBefore', options.claimedBefore),
  );
  if (from !== undefined) add(admin.claimedFrom, from);
  if (before !== undefined) add(admin.claimedBefore, before);
  if (options.stuckAfterMs !== undefined)
    add(admin.stuckCondition, requireMs('stuckAfterMs', options.stuckAfterMs));
  if (options.sinceMs !== undefined) {
    const sinceMs = requireMs('sinceMs', options.sinceMs);
    add(admin.sinceCondition, sinceMs, sinceMs);
  }
  return { where, params };
}

/**
 * The listing `options` ask for: its statement and values.
 * @throws {ConfigError} naming the option that is not valid.
 */
export function listStatement(
  spec: DialectSpec,
  admin: ReturnType<typeof adminStatements>,
  options: ListOptions,
): ListStatement {
  const { where, params } = filtersOf(admin, options);
  const limit = requireCount('limit', options.limit ?? DEFAULT_LIST_LIMIT, MAX_LIST_LIMIT);
  const order = options.order ?? 'newest';
  if (order !== 'newest' && order !== 'oldest')
    throw new ConfigError('order', `must be 'newest' or 'oldest', got ${String(order)}`);
  if (options.after !== undefined) {
    const after: Partial<ReceiptCursor> = options.after ?? {};
    const time = spec.bindTimeText(cursorTime(after));
    const provider = requireText('after.provider', after.provider);
    const externalId = requireText('after.externalId', after.externalId);
    where.push(admin.after(order));
    params.push(time, time, provider, provider, externalId);
  }
  return { sql: admin.list(where, order), params: [...params, limit] };
}
