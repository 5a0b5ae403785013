/** @module The query and form values a page reads, checked: a bad one is a 400 that names it, never a guess. */
import { InvalidRequestKey, MAX_KEY_LENGTH } from '@webhook-idempotency/core';
import { checkKeyPart } from '@webhook-idempotency/core/adapter';

/** A request value that cannot be used: answered 400, naming it. */
export class BadInput extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
    this.name = 'BadInput';
  }
}

/**
 * The longest key part a form field can hold, in UTF-16 units (what `maxlength` counts): each of
 * the {@link MAX_KEY_LENGTH} code points a key part may have takes one or two.
 */
export const MAX_KEY_FIELD = MAX_KEY_LENGTH * 2;

/**
 * A key part (a provider, an id), as a filter or to name a receipt: `undefined` when empty, else
 * what the store itself accepts as a key part (core's `checkKeyPart`: code points and UTF-8 bytes,
 * no NUL), so every key the store holds can be named and nothing it could never hold is asked of it.
 */
export function text(params: URLSearchParams, name: string): string | undefined {
  const value = params.get(name);
  if (value === null || value === '') return undefined;
  const field = name === 'provider' ? 'provider' : 'externalId';
  try {
    return checkKeyPart(field, value);
  } catch (error) {
    if (!(error instanceof InvalidRequestKey)) throw error;
    // The problem without core's "Invalid request key: <field>" prefix: the page names the field.
    throw new BadInput(name, error.message.replace(/^Invalid request key: \S+ /, ''));
  }
}

/** A value that must be there (a key's provider and id). */
export function required(params: URLSearchParams, name: string): string {
  const value = text(params, name);
  if (value === undefined) throw new BadInput(name, 'is required');
  return value;
}

/** One of `choices`, or `undefined` when empty. */
export function choice<T extends string>(
  params: URLSearchParams,
  name: string,
  choices: readonly T[],
): T | undefined {
  const value = params.get(name);
  if (value === null || value === '') return undefined;
  if (!choices.includes(value as T))
    throw new BadInput(name, `must be one of ${choices.join(', ')}`);
  return value as T;
}

/** A whole number from `min` to `max`, or `undefined` when empty. */
export function whole(
  params: URLSearchParams,
  name: string,
  min: number,
  max: number,
): number | undefined {
  const value = params.get(name);
  if (value === null || value === '') return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < min || n > max)
    throw new BadInput(name, `must be a whole number from ${min} to ${max}`);
  return n;
}

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?)?$/;

/** A UTC date and time as a `datetime-local` field sends it (`2026-12-05T10:30`), or `undefined`. */
export function utcTime(params: URLSearchParams, name: string): Date | undefined {
  const value = params.get(name);
  if (value === null || value === '') return undefined;
  const match = DATE_TIME.exec(value);
  const date = match
    ? new Date(
        Date.UTC(
          +match[1]!,
          +match[2]! - 1,
          +match[3]!,
          +(match[4] ?? 0),
          +(match[5] ?? 0),
          +(match[6] ?? 0),
        ),
      )
    : null;
  if (
    !date ||
    Number.isNaN(date.getTime()) ||
    date.toISOString().slice(0, 10) !== value.slice(0, 10)
  )
    throw new BadInput(name, 'must be a date and time such as 2026-12-05T10:30 (UTC)');
  return date;
}

/** The `datetime-local` value of a date (UTC, to the minute or second). */
export const timeValue = (date: Date | undefined): string | undefined =>
  date?.toISOString().slice(0, date.getUTCSeconds() ? 19 : 16);

/** The keyset cursor of the receipts listing: the last receipt of the page before. */
export interface Cursor {
  readonly claimedAt: Date;
  /** Its claim time exactly as stored (µs included), as the listing returned it. */
  readonly claimedAtText?: string;
  readonly provider: string;
  readonly externalId: string;
}

const EXACT_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/** A cursor as it travels in a link: opaque, URL-safe; the exact claim time when there is one. */
export const encodeCursor = (c: Cursor): string =>
  Buffer.from(
    JSON.stringify([c.claimedAtText ?? c.claimedAt.getTime(), c.provider, c.externalId]),
  ).toString('base64url');

/** The claim time of a cursor's first element: the exact text, or epoch milliseconds. */
function claimTimeOf(value: unknown): Pick<Cursor, 'claimedAt' | 'claimedAtText'> | undefined {
  if (Number.isSafeInteger(value)) return { claimedAt: new Date(value as number) };
  if (typeof value !== 'string' || !EXACT_TIME.test(value)) return undefined;
  const claimedAt = new Date(`${value.slice(0, 23)}Z`);
  return Number.isNaN(claimedAt.getTime()) ? undefined : { claimedAt, claimedAtText: value };
}

/** The cursor in `after`, or `undefined`; a forged or broken one is a 400. */
export function cursor(params: URLSearchParams): Cursor | undefined {
  const value = params.get('after');
  if (value === null || value === '') return undefined;
  try {
    if (value.length > 1000 || !/^[A-Za-z0-9_-]+$/.test(value)) throw new Error('not base64url');
    const parsed: unknown = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
    const time = Array.isArray(parsed) ? claimTimeOf(parsed[0]) : undefined;
    if (
      Array.isArray(parsed) &&
      parsed.length === 3 &&
      time &&
      typeof parsed[1] === 'string' &&
      typeof parsed[2] === 'string' &&
      parsed[1] !== '' &&
      parsed[2] !== ''
    )
      return { ...time, provider: parsed[1], externalId: parsed[2] };
  } catch {
    // Answered below.
  }
  throw new BadInput('after', 'is not a page link of this listing: start from the first page');
}

/** A listing's search (receipts, deliveries): provider, event id, one of `statuses`, a UTC time range. */
export function listSearch<T extends string>(params: URLSearchParams, statuses: readonly T[]) {
  return {
    provider: text(params, 'provider'),
    id: text(params, 'id'),
    status: choice(params, 'status', statuses),
    from: utcTime(params, 'from'),
    to: utcTime(params, 'to'),
  };
}
