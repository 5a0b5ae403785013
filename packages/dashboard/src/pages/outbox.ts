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
} from '@webhook-idempotency/core/inbox';
import { type OutboxRow, outboxRowOf } from '@webhook-idempotency/core/outbox';
import { age, bodyText, utc } from '../format';
import { type Html, html, isolated, stored } from '../html';
import { badge, keyText, link, noMessage, page, type Reply, type View } from '../layout';
import { choice, MAX_KEY_FIELD, text, whole } from '../query';
import { keyParams, subjectOf } from './action-parts';
import { due } from './deliveries';
import { noticeOf } from './receipts';

const PAGE = 50;
const STATUSES = Object.values(DeliveryStatus);

/** A listed message: its row's summary, and what its headers say (name, receipt). */
interface Listed {
  readonly row: DeliverySummary;
  readonly message: OutboxRow;
}

/**
 * The page's messages with their names and receipts: a listing's summaries carry no headers, so
 * each message of the page (at most {@link PAGE}) is read whole; one gone since reads with none.
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
function searchForm(view: View, sender: string | undefined, status: string | undefined) {
  const option = (value: string) =>
    html`<option value="${value}"${(status ?? '') === value ? html` selected` : ''}>${value || 'any'}</option>`;
  return html`<form class="filters" method="get" action="${link(view, '/outbox')}" role="search" aria-label="Search messages">
<label>Status<select name="status">${option('')}${STATUSES.map(option)}</select></label>
<label>Sender<input name="sender" value="${sender ?? ''}" maxlength="${MAX_KEY_FIELD}" autocomplete="off" dir="auto"></label>
<button type="submit">Search</button> <a href="${link(view, '/outbox')}">Clear</a>
</form>`;
}

/** The messages as a table, each linked to its page and its receipt; nothing when there are none. */
function messageTable(view: View, listed: readonly Listed[]) {
  if (!listed.length) return '';
  const now = Date.now();
  return html`<div class="scroll list"><table class="rows"><thead><tr><th scope="col">sender</th><th scope="col">effect name</th><th scope="col">key</th><th scope="col">receipt</th><th scope="col">status</th><th scope="col" class="n">failures</th><th scope="col">recorded</th><th scope="col">due / finished</th><th scope="col">last error</th></tr></thead><tbody>${listed.map(
    ({
      row: m,
      message,
    }) => html`<tr><td class="wrap">${stored(m.provider)}</td><td class="wrap">${nameOf(message)}</td><td class="wrap id"><a href="${link(view, '/outbox/message', keyParams('/outbox/message', m))}">${stored(m.externalId)}</a></td>
<td class="wrap" data-label="receipt">${receiptOf(view, message)}</td><td>${badge(m.status)}</td><td class="n" data-label="failures">${m.failures}</td><td data-label="recorded">${utc(m.receivedAt)}</td><td${m.finishedAt ? html` data-label="finished"` : ''}>${due(m, now)}</td><td class="wrap err">${m.lastError === null ? '' : stored(m.lastError)}</td></tr>`,
  )}</tbody></table></div>`;
}

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
    limit: PAGE,
    ...(afterId !== undefined ? { afterId } : {}),
  });
  const listed = await withMessages(outbox, rows);
  const filters = { status, sender };
  const last = rows[rows.length - 1];
  const next =
    rows.length === PAGE && last
      ? link(view, '/outbox', { ...filters, after: last.id })
      : undefined;
  const count = rows.length
    ? `${rows.length} message${rows.length === 1 ? '' : 's'}${afterId ? ' on this page' : ''}, in the order they were recorded.`
    : 'No messages match.';
  const body = html`<h1>Outbox messages</h1>
<p class="muted">What handlers recorded to send after their commit: each sent by its sender with its effect key on every attempt.</p>
${searchForm(view, sender, status)}
<p class="muted" role="status">${count}</p>
${messageTable(view, listed)}
<nav class="pager" aria-label="Pages">${afterId ? html`<a href="${link(view, '/outbox', filters)}">First page</a>` : ''}${next ? html`<a href="${next}" rel="next">Next page</a>` : ''}</nav>`;
  return page(200, 'Outbox', body, 'outbox');
}

/** GET `/outbox/message`: one message, its state, name and receipt; the payload behind a link. */
export async function messageDetail(
  view: View,
  outbox: InboxReader,
  params: URLSearchParams,
): Promise<Reply> {
  const { key, here } = subjectOf(view, params, '/outbox/message');
  const m = await outbox.find(key.provider, key.externalId);
  if (!m) return noMessage(key);
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
}

/** GET `/outbox/message/payload`: the message's payload, escaped (asked for by a click: it may hold personal data). */
export async function messagePayload(
  view: View,
  outbox: InboxReader,
  params: URLSearchParams,
): Promise<Reply> {
  const { key, back } = subjectOf(view, params, '/outbox/message');
  const m = await outbox.find(key.provider, key.externalId);
  if (!m) return noMessage(key);
  const shown = bodyText(m.body);
  const body = html`<h1>Payload of <span class="wrap">${keyText(key)}</span></h1>
<p><a href="${back}">Back to the message</a></p>
<p class="muted">${shown.note}</p><pre tabindex="0" aria-label="Payload" dir="auto">${shown.text}</pre>`;
  return page(200, `Payload of ${isolated(key.externalId)}`, body, 'outbox');
}
