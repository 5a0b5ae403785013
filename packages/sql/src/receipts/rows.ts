/** @module Rows as the drivers return them, turned into receipts; text made storable on every dialect. */
import type { ObservedReceipt, ReceiptStatus } from '@webhook-idempotency/core';
import type { Row } from '../connections/executor';

// Key columns are VARBINARY on MySQL: the driver hands them back as bytes.
/** A text column's value as a string. */
export const text = (value: unknown): string =>
  Buffer.isBuffer(value) ? value.toString('utf8') : String(value);
/** A nullable text column's value. */
export const nullableText = (value: unknown): string | null =>
  value === null || value === undefined ? null : text(value);
/** A nullable numeric column's value (drivers may hand back BIGINT and NUMERIC as strings). */
export const nullableNumber = (value: unknown): number | null =>
  value === null || value === undefined ? null : Number(value);

// NUL, and UTF-16 halves without their partner.
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is matched on purpose, to be replaced before storing (PostgreSQL text rejects it).
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
/** `value` with U+FFFD for each character no dialect's text column stores as given. */
export const storableText = (value: string): string => value.replace(UNSTORABLE, '\uFFFD');

/** A row of the store's read columns (`claimed_ms`, `finished_ms`, `db_now`) as a receipt. */
export function toReceipt(row: Row): ObservedReceipt {
  const claimedMs = Number(row.claimed_ms);
  const finishedMs = nullableNumber(row.finished_ms);
  return {
    provider: text(row.provider),
    externalId: text(row.external_id),
    status: text(row.status) as ReceiptStatus,
    response: nullableText(row.response),
    attempts: Number(row.attempts),
    error: nullableText(row.error),
    fingerprint: nullableText(row.fingerprint),
    claimedAt: new Date(claimedMs),
    finishedAt: finishedMs === null ? null : new Date(finishedMs),
    claimAgeMs: Math.max(0, Number(row.db_now) - claimedMs),
  };
}
