/** @module The receipts: a listing searched by provider, status, id and claim time (paged by keyset), one receipt, its stored answer. */
import { type KeyLike, ReceiptStatus } from '@webhook-idempotency/core';
import type { InboxReader } from '@webhook-idempotency/core/inbox';
import { decodeStoredAnswer } from '../answer';
import { age, bodyText, duration, headerValue, utc } from '../format';
import { html, isolated, stored } from '../html';
import { badge, keyText, link, page, problem, type Reply, type View, noReceipt } from '../layout';
import { cursor, listSearch, encodeCursor, required, timeValue } from '../query';
import type { DashboardReceipts } from '../types';
import * as list from './list-parts';

const STATUSES = [...Object.values(ReceiptStatus), 'stuck'] as const;

/** The receipt named by `provider` and `id` in the query. */
export const keyOf = (params: URLSearchParams): KeyLike => ({
  provider: required(params, 'provider'),
  externalId: required(params, 'id'),
});

/** GET `/receipts`. */
export async function receiptList(
  view: View,
  receipts: DashboardReceipts,
  params: URLSearchParams,
): Promise<Reply> {
  const { provider, id, status, from, to } = listSearch(params, STATUSES);
  const after = cursor(params);
  const stuck = status === 'stuck';
  const rows = await receipts.list({
    ...(provider ? { provider } : {}),
    ...(id ? { externalId: id } : {}),
    ...(status && !stuck ? { status } : {}),
    ...(stuck ? { stuckAfterMs: view.staleAfterMs, order: 'oldest' as const } : {}),
    ...(from ? { claimedFrom: from } : {}),
    ...(to ? { claimedBefore: to } : {}),
    ...(after ? { after } : {}),
    limit: list.PAGE,
  });
  const filters = { provider, id, status, from: timeValue(from), to: timeValue(to) };
  const next = list.nextPage(view, '/receipts', filters, rows, encodeCursor);
  const option = (value: string, label: string) =>
    html`<option value="${value}"${status === value || (!status && value === '') ? html` selected` : ''}>${label}</option>`;
  const body = html`<h1>Receipts</h1>
${list.searchForm(view, '/receipts', 'Search receipts', [
  list.textField('Provider', 'provider', provider),
  list.statusField(
    html`${option('', 'any')}${option('processing', 'processing')}${option('stuck', `stuck (over ${age(view.staleAfterMs)})`)}${option('completed', 'completed')}${option('failed', 'failed')}`,
  ),
  list.textField('Event id', 'id', id),
  list.timeField('Claimed from (UTC)', 'from', from),
  list.timeField('Claimed before (UTC)', 'to', to),
])}
<p class="muted" role="status">${rows.length ? `${rows.length === list.PAGE ? `First ${list.PAGE}` : rows.length} receipt${rows.length === 1 ? '' : 's'}${after ? ' on this page' : ''}, ${stuck ? 'oldest' : 'newest'} claim first.` : 'No receipts match.'}</p>
${list.rowsTable(
  'provider,id,status,#attempts,claimed,#took,error',
  rows.map(
    (
      r,
    ) => html`<tr><td class="wrap">${stored(r.provider)}</td><td class="wrap id"><a href="${link(view, '/receipt', { provider: r.provider, id: r.externalId })}">${stored(r.externalId)}</a></td>
<td>${badge(r.status === 'processing' && r.claimAgeMs >= view.staleAfterMs ? 'processing' : r.status)}${r.status === 'processing' && r.claimAgeMs >= view.staleAfterMs ? html` <span class="bad">stuck</span>` : ''}</td><td class="n" data-label="attempts">${r.attempts}</td>
<td data-label="claimed"><time datetime="${r.claimedAt.toISOString()}">${utc(r.claimedAt)}</time></td><td class="n" data-label="took">${r.finishedAt ? duration(r.finishedAt.getTime() - r.claimedAt.getTime()) : '-'}</td><td class="wrap err">${r.error === null ? '' : stored(r.error)}</td></tr>`,
  ),
)}
${list.pager(view, '/receipts', filters, Boolean(after), next)}`;
  return page(200, 'Receipts', body, 'receipts');
}

/** GET `/receipt`: one receipt, its stored answer's status and headers; the body behind a link. */
export async function receiptDetail(
  view: View,
  receipts: DashboardReceipts,
  inbox: InboxReader | undefined,
  params: URLSearchParams,
): Promise<Reply> {
  const key = keyOf(params);
  const [receipt, delivery] = await Promise.all([
    receipts.find(key),
    inbox?.find(key.provider, key.externalId),
  ]);
  if (!receipt) return noReceipt(key);
  const answer = receipt.response === null ? null : decodeStoredAnswer(receipt.response);
  const stuck = receipt.status === 'processing' && receipt.claimAgeMs >= view.staleAfterMs;
  const keyParams = { provider: key.provider, id: key.externalId };
  const body = html`<h1>Receipt <span class="wrap">${keyText(key)}</span></h1>
${noticeOf(params)}
<dl class="fields">
<dt>Provider</dt><dd>${stored(receipt.provider)}</dd><dt>Event id</dt><dd>${stored(receipt.externalId)}</dd>
<dt>Status</dt><dd>${badge(receipt.status)}${stuck ? html` <span class="bad">stuck: processing for ${age(receipt.claimAgeMs)}</span>` : ''}</dd>
<dt>Attempts</dt><dd>${receipt.attempts}</dd>
<dt>Claimed</dt><dd>${utc(receipt.claimedAt)} (${age(receipt.claimAgeMs)} ago)</dd>
${receipt.finishedAt ? html`<dt>Finished</dt><dd>${utc(receipt.finishedAt)} (took ${duration(receipt.finishedAt.getTime() - receipt.claimedAt.getTime())})</dd>` : ''}
${receipt.fingerprint ? html`<dt>Fingerprint</dt><dd><code>${receipt.fingerprint}</code></dd>` : ''}
<dt>Last error</dt><dd>${receipt.error === null ? html`<span class="muted">none</span>` : stored(receipt.error)}</dd>
${delivery ? html`<dt>Inbox delivery</dt><dd><a href="${link(view, '/delivery', keyParams)}">${delivery.status}</a></dd>` : ''}
</dl>
${
  receipt.status === 'processing' && !view.readOnly
    ? html`<div class="actions"><a class="button" href="${link(view, '/receipt/release', keyParams)}">Release this claim…</a></div>`
    : ''
}
<h2>Stored answer</h2>
${
  answer === null
    ? html`<p class="muted">None stored (the handler has not completed).</p>`
    : answer.kind === 'http'
      ? html`<dl class="fields"><dt>Status</dt><dd>${answer.record.status}</dd><dt>Body</dt><dd>${answer.record.body.length} bytes — <a href="${link(view, '/receipt/answer', keyParams)}">Show the body</a></dd></dl>
${headerTable(answer.record.headers)}`
      : html`<p>A value the handler returned (${answer.text.length} characters) — <a href="${link(view, '/receipt/answer', keyParams)}">Show it</a></p>`
}`;
  return page(200, `Receipt ${isolated(key.externalId)}`, body, 'receipts');
}

/** The headers of a stored answer or a delivery, signatures and credentials masked. */
export function headerTable(headers: Readonly<Record<string, string | readonly string[]>>) {
  const rows = Object.entries(headers).map(
    ([name, value]) =>
      html`<tr><th scope="row">${stored(name)}</th><td class="wrap">${stored(headerValue(name, value))}</td></tr>`,
  );
  return rows.length
    ? html`<div class="scroll"><table><caption>Headers</caption><tbody>${rows}</tbody></table></div>`
    : html`<p class="muted">No headers.</p>`;
}

/** GET `/receipt/answer`: the stored answer's body, escaped (asked for by a click). */
export async function receiptAnswer(
  view: View,
  receipts: DashboardReceipts,
  params: URLSearchParams,
): Promise<Reply> {
  const key = keyOf(params);
  const receipt = await receipts.find(key);
  if (!receipt || receipt.response === null)
    return problem(404, 'No stored answer', html`No stored answer for ${keyText(key)}.`);
  const answer = decodeStoredAnswer(receipt.response);
  const shown =
    answer.kind === 'http'
      ? bodyText(answer.record.body)
      : { text: answer.text, note: 'the stored value' };
  const body = html`<h1>Stored answer of <span class="wrap">${keyText(key)}</span></h1>
<p><a href="${link(view, '/receipt', { provider: key.provider, id: key.externalId })}">Back to the receipt</a></p>
<p class="muted">${shown.note}</p><pre tabindex="0" aria-label="Body" dir="auto">${shown.text}</pre>`;
  return page(200, `Answer of ${isolated(key.externalId)}`, body, 'receipts');
}

/** The notices by name: a Map, so that a name like `constructor` finds nothing. */
const NOTICES = new Map<string, string>([
  [
    'released',
    'Released: the receipt is failed now, and the provider’s next delivery runs the handler again.',
  ],
  ['retried', 'Retried: the delivery is pending and due now; a worker takes it at its next poll.'],
  ['redelivered', 'Redelivered: the delivery is pending and due now; its handler runs again.'],
  [
    'message-retried',
    'Retried: the message is pending and due now; a dispatcher sends it at its next poll, under the same key.',
  ],
]);

/** The notice a redirect after an action asked for (from a fixed list: nothing of the URL is echoed). */
export function noticeOf(params: URLSearchParams) {
  const notice = NOTICES.get(params.get('done') ?? '');
  return notice ? html`<p class="notice" role="status">${notice}</p>` : '';
}
