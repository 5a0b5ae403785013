/**
 * @module The outbox: messages by status and sender (paged by id, a keyset), one message with its
 * effect name and receipt, its payload. The outbox's table has the inbox's shape, read through the
 * same operator role: a row's `provider` is the message's sender, its `externalId` the effect key,
 * and its headers name the effect and the receipt it was recorded under.
 */
import { leasesOf } from '@webhook-idempotency/core/adapter';
import {
  DeliveryStatus,
  type DeliverySummary,
  type InboxReader,
  type StoredDelivery,
} from '@webhook-idempotency/core/inbox';
import { type OutboxRow, outboxRowOf } from '@webhook-idempotency/core/outbox';
import { age, bodyText, utc } from '../format';
import { type Html, html, isolated, stored } from '../html';
import { badge, keyText, link, noMessage, page, type Reply, type View } from '../layout';
import { choice, text, whole } from '../query';
import { keyParams, type Subject, subjectOf } from './action-parts';
import { due, stateCells } from './deliveries';
import * as list from './list-parts';
import { noticeOf } from './receipts';

const STATUSES = Object.values(DeliveryStatus);

/** A listed message: its row's summary, and what its headers say (name, receipt). */
export interface Listed {
  readonly row: DeliverySummary;
  readonly message: OutboxRow;
}

/**
 * The page's messages with their names and receipts: a listing's summaries carry no headers, so
 * each message of the page (at most {@link list.PAGE}) is read whole; one gone since reads with none.
 */
async function withMessages(outbox: InboxReader, rows: readonly DeliverySummary[]) {
  const found = await Promise.all(rows.map((r) => outbox.find(r.provider, r.externalId)));
  return rows.map(
    (row, i): Listed => ({
      row,
      message: outboxRowOf({ ...row, headers: found[i]?.headers ?? {} }),
    }),
  );
}

/** A message's receipt, linked to its page; `none` when the row names none. */
const receiptOf = (view: View, message: OutboxRow): Html =>
  message.receipt
    ? html`<a href="${link(view, '/receipt', { provider: message.receipt.provider, id: message.receipt.externalId })}">${keyText(message.receipt)}</a>`
    : html`<span class="muted">none</span>`;

/** A message's effect name, or `none`. */
const nameOf = (message: OutboxRow): Html =>
  message.name === null ? html`<span class="muted">none</span>` : stored(message.name);

/** The filters of the list: one status, one sender. */
function messageSearch(view: View, sender: string | undefined, status: string | undefined) {
  return list.searchForm(view, '/outbox', 'Search messages', [
    list.statusField(list.statusOptions(STATUSES, status)),
    list.textField('Sender', 'sender', sender),
  ]);
}

/** One message as a row of the list at `now`, linked to its page and its receipt. */
export const messageRow = (view: View, { row: m, message }: Listed, now: number): Html =>
  html`<tr><td class="wrap">${stored(m.provider)}</td><td class="wrap">${nameOf(message)}</td><td class="wrap id"><a href="${link(view, '/outbox/message', keyParams('/outbox/message', m))}">${stored(m.externalId)}</a></td>
<td class="wrap" data-label="receipt">${receiptOf(view, message)}</td><td>${badge(m.status)}</td>${stateCells(m, 'recorded', now)}</tr>`;

/** GET `/outbox`: the messages of one status (or all) and one sender (or all), in the order they were recorded. */
export async function messageList(
  view: View,
  outbox: InboxReader,
  params: URLSearchParams,
): Promise<Reply> {
  const status = choice(params, 'status', STATUSES);
  const sender = text(params, 'sender');
  const afterId = whole(params, 'after', 0, Number.MAX_SAFE_INTEGER);
  const rows = await outbox.list({
    ...(status ? { status } : {}),
    ...(sender ? { provider: sender } : {}),
    limit: list.PAGE,
    ...(afterId !== undefined ? { afterId } : {}),
  });
  const listed = await withMessages(outbox, rows);
  const filters = { status, sender };
  const next = list.nextPage(view, '/outbox', filters, rows, (last) => last.id);
  const count = rows.length
    ? `${rows.length} message${rows.length === 1 ? '' : 's'}${afterId ? ' on this page' : ''}, in the order they were recorded.`
    : 'No messages match.';
  const now = Date.now();
  const body = html`<h1>Outbox messages</h1>
<p class="muted">What handlers recorded to send after their commit: each sent by its sender with its effect key on every attempt.</p>
${messageSearch(view, sender, status)}
<p class="muted" role="status">${count}</p>
${list.rowsTable(
  'sender,effect name,key,receipt,status,#failures,recorded,due / finished,last error',
  listed.map((each) => messageRow(view, each, now)),
)}
${list.pager(view, '/outbox', filters, Boolean(afterId), next)}`;
  return page(200, 'Outbox', body, 'outbox');
}

/**
 * A page about one message, the one the query names: `render` given the message and its links;
 * a 404 naming the key when it is gone.
 */
const messagePage =
  (render: (view: View, params: URLSearchParams, subject: Subject, m: StoredDelivery) => Reply) =>
  async (view: View, outbox: InboxReader, params: URLSearchParams): Promise<Reply> => {
    const subject = subjectOf(view, params, '/outbox/message');
    const m = await outbox.find(subject.key.provider, subject.key.externalId);
    return m ? render(view, params, subject, m) : noMessage(subject.key);
  };

/** GET `/outbox/message`: one message, its state, name and receipt; the payload behind a link. */
export const messageDetail = messagePage((view, params, { key, here }, m) => {
  const message = outboxRowOf(m);
  const now = Date.now();
  const canRetry = m.status === 'dead' || (m.status === 'pending' && m.availableAt.getTime() > now);
  const body = html`<h1>Message <span class="wrap">${keyText(key)}</span></h1>
${noticeOf(params)}
<dl class="fields">
<dt>Sender</dt><dd>${stored(m.provider)}</dd><dt>Effect name</dt><dd>${nameOf(message)}</dd>
<dt>Effect key</dt><dd>${stored(m.externalId)}</dd>
<dt>Receipt</dt><dd>${receiptOf(view, message)}</dd>
<dt>Status</dt><dd>${badge(m.status)}</dd>
<dt>Leases</dt><dd>${leasesOf(m)}</dd><dt>Failures</dt><dd>${m.failures}</dd>
<dt>Recorded</dt><dd>${utc(m.receivedAt)} (${age(now - m.receivedAt.getTime())} ago)</dd>
<dt>${m.finishedAt ? 'Finished' : 'Due'}</dt><dd>${m.finishedAt ? utc(m.finishedAt) : due({ ...m, bodyBytes: m.body.length }, now)}</dd>
<dt>Last error</dt><dd>${m.lastError === null ? html`<span class="muted">none</span>` : stored(m.lastError)}</dd>
<dt>Payload</dt><dd>${m.body.length} bytes — <a href="${link(view, '/outbox/message/payload', here)}">Show the payload</a></dd>
</dl>
${
  view.readOnly || !canRetry
    ? ''
    : html`<div class="actions"><a class="button" href="${link(view, '/outbox/retry', here)}">Retry…</a></div>`
}`;
  return page(200, `Message ${isolated(key.externalId)}`, body, 'outbox');
});

/** GET `/outbox/message/payload`: the message's payload, escaped (asked for by a click: it may hold personal data). */
export const messagePayload = messagePage((_view, _params, { key, back }, m) => {
  const shown = bodyText(m.body);
  const body = html`<h1>Payload of <span class="wrap">${keyText(key)}</span></h1>
<p><a href="${back}">Back to the message</a></p>
<p class="muted">${shown.note}</p><pre tabindex="0" aria-label="Payload" dir="auto">${shown.text}</pre>`;
  return page(200, `Payload of ${isolated(key.externalId)}`, body, 'outbox');
});
