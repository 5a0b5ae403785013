/**
 * What the deliveries and outbox lists show of each state, cell by cell: the status badge (its
 * word and its `s-<status>` colour class), then the state cells both pages end their rows with
 * (failures, when stored, when due or finished, the last error), each with the `data-label` a
 * phone's stacked layout prints before it. Read off the cells themselves at a fixed time, so a
 * changed word, class or label fails here rather than only moving a snapshot.
 */
import { leaseCount } from '@webhook-idempotency/core/adapter';
import { DeliveryStatus, type DeliverySummary } from '@webhook-idempotency/core/inbox';
import { badge } from '../src/layout';
import { stateCells } from '../src/pages/deliveries';

const NOW = Date.parse('2026-03-01T12:00:00.000Z');
const RECEIVED = new Date('2026-03-01T11:00:00.000Z');

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
    receivedAt: RECEIVED,
    availableAt: new Date(NOW),
    finishedAt: null,
    lastError: null,
    bodyBytes: 12,
    ...fields,
  };
}

interface Cell {
  readonly tag: string;
  readonly cls: string | null;
  readonly label: string | null;
  readonly text: string;
}

/** The cells of a row's markup, in order: their class, `data-label` and content. */
function cells(markup: string): Cell[] {
  return [...markup.matchAll(/<(td|span)([^>]*)>(.*?)<\/\1>/gs)].map(([, tag, attrs, text]) => ({
    tag: tag!,
    cls: /class="([^"]*)"/.exec(attrs!)?.[1] ?? null,
    label: /data-label="([^"]*)"/.exec(attrs!)?.[1] ?? null,
    text: text!,
  }));
}

/** The badge and the state cells, as a deliveries (`received`) or outbox (`recorded`) row ends. */
const row = (d: DeliverySummary, stored: 'received' | 'recorded'): Cell[] =>
  cells(`${badge(d.status)}${stateCells(d, stored, NOW)}`);

describe.each(['received', 'recorded'] as const)('a %s row', (stored) => {
  const storedCell: Cell = {
    tag: 'td',
    cls: null,
    label: stored,
    text: '2026-03-01 11:00:00 UTC',
  };
  const failuresCell = (n: number): Cell => ({
    tag: 'td',
    cls: 'n',
    label: 'failures',
    text: String(n),
  });
  const dueCell = (text: string, label: string | null = null): Cell => ({
    tag: 'td',
    cls: null,
    label,
    text,
  });
  // A stored text stands in `<bdi>`, isolated from the page's direction.
  const errorCell = (error: string | null): Cell => ({
    tag: 'td',
    cls: 'wrap err',
    label: null,
    text: error === null ? '' : `<bdi>${error}</bdi>`,
  });
  const badgeOf = (status: string): Cell => ({
    tag: 'span',
    cls: `badge s-${status}`,
    label: null,
    text: status,
  });

  it.each([
    ['due now', NOW, 'due now'],
    ['due later', NOW + 12 * 60_000, 'due in 12m'],
  ])('pending, %s: its failures, when stored and when it is due, no error', (_, at, due) => {
    const d = delivery(DeliveryStatus.PENDING, {
      availableAt: new Date(at),
      failures: 1,
      lastError: 'HTTP 500',
    });
    expect(row(d, stored)).toEqual([
      badgeOf('pending'),
      failuresCell(1),
      storedCell,
      dueCell(due),
      errorCell('HTTP 500'),
    ]);
  });

  it.each([
    ['its lease running', NOW + 45_000, 'leased for 45s'],
    ['its lease run out', NOW - 1, 'lease expired'],
  ])('processing, %s: how long the lease lasts', (_, at, due) => {
    const d = delivery(DeliveryStatus.PROCESSING, { availableAt: new Date(at) });
    expect(row(d, stored)).toEqual([
      badgeOf('processing'),
      failuresCell(0),
      storedCell,
      dueCell(due),
      errorCell(null),
    ]);
  });

  it.each([
    [DeliveryStatus.DONE, null],
    [DeliveryStatus.DEAD, 'handler threw: <boom>'],
  ])('%s: when it finished, labelled finished, and its last error', (status, lastError) => {
    const d = delivery(status, {
      finishedAt: new Date('2026-03-01T11:30:00.000Z'),
      failures: lastError === null ? 0 : 5,
      lastError,
    });
    expect(row(d, stored)).toEqual([
      badgeOf(status),
      failuresCell(lastError === null ? 0 : 5),
      storedCell,
      dueCell('2026-03-01 11:30:00 UTC', 'finished'),
      errorCell(lastError === null ? null : 'handler threw: &lt;boom&gt;'),
    ]);
  });

  it('a finished state with no finish time shows a dash, with no finished label', () => {
    expect(row(delivery(DeliveryStatus.DONE, {}), stored)[3]).toEqual(dueCell('-'));
  });
});

it('every status the inbox has is one of the states above', () => {
  expect(Object.values(DeliveryStatus).sort()).toEqual(['dead', 'done', 'pending', 'processing']);
});
