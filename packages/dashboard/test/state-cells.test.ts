/**
 * What the deliveries and outbox lists show of each state, cell by cell, from a row of each page
 * at a fixed time: the status badge (its word and its `s-<status>` colour class), the deliveries'
 * leases, then the state cells both pages end their rows with (failures, when stored, when due or
 * finished, the last error), each with the `data-label` a phone's stacked layout prints before it.
 * A changed word, class or label fails here.
 */
import { leaseCount } from '@webhook-idempotency/core/adapter';
import { DeliveryStatus, type DeliverySummary } from '@webhook-idempotency/core/inbox';
import { OutboxHeader, outboxRowOf } from '@webhook-idempotency/core/outbox';
import type { View } from '../src/layout';
import { deliveryRow } from '../src/pages/deliveries';
import { messageRow } from '../src/pages/outbox';

const NOW = Date.parse('2026-03-01T12:00:00.000Z');
const VIEW: View = {
  base: '/admin',
  nonce: 'n',
  token: 't',
  readOnly: false,
  hasInbox: true,
  hasOutbox: true,
  staleAfterMs: 300_000,
};

function delivery(
  status: DeliveryStatus,
  fields: Partial<Pick<DeliverySummary, 'availableAt' | 'finishedAt' | 'lastError' | 'failures'>>,
): DeliverySummary {
  return {
    id: 1,
    provider: 'stripe',
    externalId: 'evt_1',
    orderingKey: null,
    status,
    ...leaseCount(2),
    failures: 0,
    receivedAt: new Date('2026-03-01T11:00:00.000Z'),
    availableAt: new Date(NOW),
    finishedAt: null,
    lastError: null,
    bodyBytes: 12,
    ...fields,
  };
}

interface Cell {
  readonly cls: string | null;
  readonly label: string | null;
  readonly content: string;
}

/** The cells of a row's markup, in order: their class, `data-label` and content. */
function cells(markup: string): Cell[] {
  return [...markup.matchAll(/<td([^>]*)>(.*?)<\/td>/gs)].map(([, attrs, content]) => ({
    cls: /class="([^"]*)"/.exec(attrs!)?.[1] ?? null,
    label: /data-label="([^"]*)"/.exec(attrs!)?.[1] ?? null,
    content: content!,
  }));
}

const cell = (content: string, cls: string | null = null, label: string | null = null): Cell => ({
  cls,
  label,
  content,
});

/**
 * Each page's row of `d`, from its status cell on, and the cells it shows before its state cells
 * (the badge, and the deliveries' leases).
 */
const pages = [
  {
    page: 'deliveries',
    stored: 'received',
    row: (d: DeliverySummary) => cells(String(deliveryRow(VIEW, d, NOW))).slice(2),
    before: (status: string) => [
      cell(`<span class="badge s-${status}">${status}</span>`),
      cell('2', 'n', 'leases'),
    ],
  },
  {
    page: 'outbox',
    stored: 'recorded',
    row: (d: DeliverySummary) => {
      const headers = {
        [OutboxHeader.RECEIPT_PROVIDER]: 'stripe',
        [OutboxHeader.RECEIPT_ID]: 'evt_9',
        [OutboxHeader.EFFECT_NAME]: 'refund',
      };
      const message = outboxRowOf({ ...d, headers });
      return cells(String(messageRow(VIEW, { row: d, message }, NOW))).slice(4);
    },
    before: (status: string) => [cell(`<span class="badge s-${status}">${status}</span>`)],
  },
] as const;

describe.each(pages)('a row of the $page list', ({ stored, row, before }) => {
  const storedCell = cell('2026-03-01 11:00:00 UTC', null, stored);
  const failuresCell = (n: number) => cell(String(n), 'n', 'failures');
  // A stored text stands in `<bdi>`, isolated from the page's direction.
  const errorCell = (error: string | null) =>
    cell(error === null ? '' : `<bdi>${error}</bdi>`, 'wrap err');

  it.each([
    ['due now', NOW, 'due now'],
    ['due later', NOW + 12 * 60_000, 'due in 12m'],
  ])('pending, %s: its failures, when stored, when it is due, its last error', (_, at, due) => {
    const d = delivery(DeliveryStatus.PENDING, {
      availableAt: new Date(at),
      failures: 1,
      lastError: 'HTTP 500',
    });
    expect(row(d)).toEqual([
      ...before('pending'),
      failuresCell(1),
      storedCell,
      cell(due),
      errorCell('HTTP 500'),
    ]);
  });

  it.each([
    ['its lease running', NOW + 45_000, 'leased for 45s'],
    ['its lease run out', NOW - 1, 'lease expired'],
  ])('processing, %s: how long the lease lasts', (_, at, due) => {
    const d = delivery(DeliveryStatus.PROCESSING, { availableAt: new Date(at) });
    expect(row(d)).toEqual([
      ...before('processing'),
      failuresCell(0),
      storedCell,
      cell(due),
      errorCell(null),
    ]);
  });

  it.each([
    [DeliveryStatus.DONE, null],
    [DeliveryStatus.DEAD, 'handler threw: <boom>'],
  ])('%s: when it finished, labelled finished, and its last error', (status, lastError) => {
    const failures = lastError === null ? 0 : 5;
    const d = delivery(status, {
      finishedAt: new Date('2026-03-01T11:30:00.000Z'),
      failures,
      lastError,
    });
    expect(row(d)).toEqual([
      ...before(status),
      failuresCell(failures),
      storedCell,
      cell('2026-03-01 11:30:00 UTC', null, 'finished'),
      errorCell(lastError === null ? null : 'handler threw: &lt;boom&gt;'),
    ]);
  });

  it('a finished state with no finish time shows a dash, with no finished label', () => {
    expect(row(delivery(DeliveryStatus.DONE, {})).at(-2)).toEqual(cell('-'));
  });
});

it('every status the inbox has is one of the states above', () => {
  expect(Object.values(DeliveryStatus).sort()).toEqual(['dead', 'done', 'pending', 'processing']);
});
