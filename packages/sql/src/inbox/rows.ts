/** @module Rows of the deliveries table as the `InboxStore` types (deliveries, references, summaries). */
import type {
  Delivery,
  DeliveryStatus,
  DeliverySummary,
  LeasedRef,
  StoredDelivery,
} from '@webhook-idempotency/core/inbox';
import { leaseCount } from '@webhook-idempotency/core/adapter';
import type { Row } from '../connections/executor';

// Key columns are VARBINARY on MySQL: the driver hands them back as bytes.
export const text = (value: unknown): string =>
  Buffer.isBuffer(value) ? value.toString('utf8') : String(value);
const nullableText = (value: unknown): string | null =>
  value === null || value === undefined ? null : text(value);
const bytes = (value: unknown): Buffer =>
  Buffer.isBuffer(value)
    ? value
    : value instanceof Uint8Array
      ? Buffer.from(value.buffer, value.byteOffset, value.byteLength)
      : Buffer.from(String(value ?? ''), 'utf8');
const date = (value: unknown): Date => new Date(Number(value));

function headersOf(value: unknown): Record<string, string> {
  const parsed = JSON.parse(text(value)) as unknown;
  return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, string>) : {};
}

// The lease count is the `attempts` column: its name before the vocabulary gave the inbox
// `leases` (a receipt's attempts are handler starts). Renaming a column of a live table is a
// migration every installation would have to run for a word; the rows map it instead.
export function toDelivery(row: Row, leases = Number(row.attempts)): Delivery {
  return {
    id: Number(row.id),
    provider: text(row.provider),
    externalId: text(row.external_id),
    orderingKey: nullableText(row.ordering_key),
    headers: headersOf(row.headers),
    body: bytes(row.body),
    ...leaseCount(leases),
    failures: Number(row.failures),
    receivedAt: date(row.received_ms),
  };
}

/** A claimed row as the worker gets it: leased (`leases + 1`), a takeover counted as a failure. */
export function toClaimed(row: Row): Delivery {
  const delivery = toDelivery(row, Number(row.attempts) + 1);
  return text(row.status) === 'processing'
    ? { ...delivery, failures: delivery.failures + 1 }
    : delivery;
}

/** A claimed row as a relay holds it: counted as the lease counted it (`leases + 1`, a takeover a failure). */
export function toLeasedRef(row: Row): LeasedRef {
  const takenOver = text(row.status) === 'processing';
  return {
    id: Number(row.id),
    provider: text(row.provider),
    externalId: text(row.external_id),
    ...leaseCount(Number(row.attempts) + 1),
    failures: Number(row.failures) + (takenOver ? 1 : 0),
  };
}

/** A `lapsed` row: the lease it is still held under. */
export const toHeldRef = (row: Row): LeasedRef => ({
  id: Number(row.id),
  provider: text(row.provider),
  externalId: text(row.external_id),
  ...leaseCount(Number(row.attempts)),
  failures: Number(row.failures),
});

export function toSummary(row: Row): DeliverySummary {
  return {
    id: Number(row.id),
    provider: text(row.provider),
    externalId: text(row.external_id),
    orderingKey: nullableText(row.ordering_key),
    ...leaseCount(Number(row.attempts)),
    failures: Number(row.failures),
    receivedAt: date(row.received_ms),
    bodyBytes: Number(row.body_bytes ?? 0),
    ...stateOf(row),
  };
}

function stateOf(row: Row) {
  return {
    status: text(row.status) as DeliveryStatus,
    availableAt: date(row.available_ms),
    finishedAt:
      row.finished_ms === null || row.finished_ms === undefined ? null : date(row.finished_ms),
    lastError: nullableText(row.last_error),
  };
}

export function toStored(row: Row): StoredDelivery {
  return { ...toDelivery(row), ...stateOf(row) };
}
