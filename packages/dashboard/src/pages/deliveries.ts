/** @module The inbox: deliveries by provider, status and received time (paged by id, a keyset), one delivery, its body. */
import { leasesOf } from '@webhook-idempotency/core/adapter';
import {
  DeliveryStatus,
  type DeliverySummary,
  type InboxReader,
} from '@webhook-idempotency/core/inbox';
import { age, bodyText, utc } from '../format';
import { type Html, html, isolated, stored } from '../html';
import { badge, keyText, link, noDelivery, page, type Reply, type View } from '../layout';
import { listSearch, timeValue, whole } from '../query';
import type { DashboardReceipts } from '../types';
import * as list from './list-parts';
import { headerTable, keyOf, noticeOf } from './receipts';

const STATUSES = Object.values(DeliveryStatus);

/** When a pending delivery (or outbox message) is due, or how long a processing one's lease lasts. */
export function due(d: DeliverySummary, now: number): string {
  const left = d.availableAt.getTime() - now;
  if (d.status === 'pending') return left <= 0 ? 'due now' : `due in ${age(left)}`;
  if (d.status === 'processing') return left <= 0 ? 'lease expired' : `leased for ${age(left)}`;
  return d.finishedAt ? utc(d.finishedAt) : '-';
}

/**
 * The last cells of a delivery's (or message's) row: its failures, when it was stored (`label`:
 * received, recorded), when it is due or finished, its last error.
 */
export const stateCells = (d: DeliverySummary, label: string, now: number): Html =>
  html`<td class="n" data-label="failures">${d.failures}</td><td data-label="${label}">${utc(d.receivedAt)}</td><td${d.finishedAt ? html` data-label="finished"` : ''}>${due(d, now)}</td><td class="wrap err">${d.lastError === null ? '' : stored(d.lastError)}</td>`;

type Search = ReturnType<typeof listSearch<DeliveryStatus>>;

/**
 * The deliveries with `search.id`, looked up under the given provider, or under each provider the
 * receipts know (the inbox finds by provider and id), kept when they match the other filters.
 */
async function deliveriesById(
  view: View,
  inbox: InboxReader,
  receipts: DashboardReceipts,
  { provider, id, status, from, to }: Search & { id: string },
): Promise<DeliverySummary[]> {
  const providers = provider
    ? [provider]
    : (await receipts.status({ staleAfterMs: view.staleAfterMs, sinceMs: 1 })).providers.map(
        (c) => c.provider,
      );
  const found = await Promise.all(providers.map((p) => inbox.find(p, id)));
  return found
    .filter(
      (d): d is NonNullable<typeof d> =>
        d !== null &&
        (!status || d.status === status) &&
        (!from || d.receivedAt >= from) &&
        (!to || d.receivedAt < to),
    )
    .map(({ body, headers: _headers, ...d }) => ({ ...d, bodyBytes: body.length }));
}

/** A page of the deliveries matching `search` (without an id), after the one with `afterId`. */
function deliveryPage(
  inbox: InboxReader,
  { provider, status, from, to }: Search,
  afterId: number | undefined,
): Promise<DeliverySummary[]> {
  return inbox.list({
    ...(status ? { status } : {}),
    ...(provider ? { provider } : {}),
    ...(from ? { receivedFrom: from } : {}),
    ...(to ? { receivedBefore: to } : {}),
    limit: list.PAGE,
    ...(afterId !== undefined ? { afterId } : {}),
  });
}

/** The search form of the deliveries list, holding the current filters. */
function deliverySearch(view: View, { provider, id, status, from, to }: Search) {
  return list.searchForm(view, '/deliveries', 'Search deliveries', [
    list.textField('Provider', 'provider', provider),
    list.statusField(list.statusOptions(STATUSES, status)),
    list.textField('Event id', 'id', id),
    list.timeField('Received from (UTC)', 'from', from),
    list.timeField('Received before (UTC)', 'to', to),
  ]);
}

/** One delivery as a row of the list at `now`, linked to its page. */
export const deliveryRow = (view: View, d: DeliverySummary, now: number): Html =>
  html`<tr><td class="wrap">${stored(d.provider)}</td><td class="wrap id"><a href="${link(view, '/delivery', { provider: d.provider, id: d.externalId })}">${stored(d.externalId)}</a></td>
<td>${badge(d.status)}</td><td class="n" data-label="leases">${leasesOf(d)}</td>${stateCells(d, 'received', now)}</tr>`;

/**
 * GET `/deliveries`. An id is looked up under the given provider, or under each provider the
 * receipts know (the inbox finds by provider and id).
 */
export async function deliveryList(
  view: View,
  inbox: InboxReader,
  receipts: DashboardReceipts,
  params: URLSearchParams,
): Promise<Reply> {
  const search = listSearch(params, STATUSES);
  const { provider, id, status, from, to } = search;
  const afterId = whole(params, 'after', 0, Number.MAX_SAFE_INTEGER);
  const rows =
    id !== undefined
      ? await deliveriesById(view, inbox, receipts, { ...search, id })
      : await deliveryPage(inbox, search, afterId);
  const filters = { provider, id, status, from: timeValue(from), to: timeValue(to) };
  const next =
    id === undefined
      ? list.nextPage(view, '/deliveries', filters, rows, (last) => last.id)
      : undefined;
  const now = Date.now();
  const body = html`<h1>Inbox deliveries</h1>
${deliverySearch(view, search)}
<p class="muted" role="status">${rows.length ? `${rows.length} deliver${rows.length === 1 ? 'y' : 'ies'}${afterId ? ' on this page' : ''}, in the order they arrived.` : 'No deliveries match.'}</p>
${list.rowsTable(
  'provider,id,status,#leases,#failures,received,due / finished,last error',
  rows.map((d) => deliveryRow(view, d, now)),
)}
${list.pager(view, '/deliveries', filters, Boolean(afterId), next)}
${view.readOnly ? '' : html`<p><a href="${link(view, '/deliveries/retry-dead', { provider })}">Retry dead deliveries in bulk…</a></p>`}`;
  return page(200, 'Inbox', body, 'inbox');
}

/** GET `/delivery`: one delivery, its state and stored headers; the body behind a link. */
export async function deliveryDetail(
  view: View,
  inbox: InboxReader,
  receipts: DashboardReceipts,
  params: URLSearchParams,
): Promise<Reply> {
  const key = keyOf(params);
  const [d, receipt] = await Promise.all([
    inbox.find(key.provider, key.externalId),
    receipts.find(key),
  ]);
  if (!d) return noDelivery(key);
  const keyParams = { provider: key.provider, id: key.externalId };
  const now = Date.now();
  const canRetry = d.status === 'dead' || (d.status === 'pending' && d.availableAt.getTime() > now);
  const canRedeliver = d.status === 'dead' || d.status === 'done';
  const body = html`<h1>Delivery <span class="wrap">${keyText(key)}</span></h1>
${noticeOf(params)}
<dl class="fields">
<dt>Provider</dt><dd>${stored(d.provider)}</dd><dt>Event id</dt><dd>${stored(d.externalId)}</dd>
<dt>Status</dt><dd>${badge(d.status)}</dd>
<dt>Leases</dt><dd>${leasesOf(d)}</dd><dt>Failures</dt><dd>${d.failures}</dd>
${d.orderingKey !== null ? html`<dt>Ordering key</dt><dd>${stored(d.orderingKey)}</dd>` : ''}
<dt>Received</dt><dd>${utc(d.receivedAt)} (${age(now - d.receivedAt.getTime())} ago)</dd>
<dt>${d.finishedAt ? 'Finished' : 'Due'}</dt><dd>${d.finishedAt ? utc(d.finishedAt) : due({ ...d, bodyBytes: d.body.length }, now)}</dd>
<dt>Last error</dt><dd>${d.lastError === null ? html`<span class="muted">none</span>` : stored(d.lastError)}</dd>
<dt>Receipt</dt><dd>${receipt ? html`<a href="${link(view, '/receipt', keyParams)}">${receipt.status}</a>` : html`<span class="muted">none</span>`}</dd>
<dt>Body</dt><dd>${d.body.length} bytes — <a href="${link(view, '/delivery/body', keyParams)}">Show the body</a></dd>
</dl>
${
  view.readOnly || !(canRetry || canRedeliver)
    ? ''
    : html`<div class="actions">${canRetry ? html`<a class="button" href="${link(view, '/delivery/retry', keyParams)}">Retry…</a>` : ''}${
        canRedeliver
          ? html`<a class="button" href="${link(view, '/delivery/redeliver', keyParams)}">Redeliver…</a>`
          : ''
      }</div>`
}
<h2>Stored headers</h2>
${headerTable(d.headers)}`;
  return page(200, `Delivery ${isolated(key.externalId)}`, body, 'inbox');
}

/** GET `/delivery/body`: the delivery's body bytes, escaped (asked for by a click). */
export async function deliveryBody(
  view: View,
  inbox: InboxReader,
  params: URLSearchParams,
): Promise<Reply> {
  const key = keyOf(params);
  const d = await inbox.find(key.provider, key.externalId);
  if (!d) return noDelivery(key);
  const shown = bodyText(d.body);
  const body = html`<h1>Body of <span class="wrap">${keyText(key)}</span></h1>
<p><a href="${link(view, '/delivery', { provider: key.provider, id: key.externalId })}">Back to the delivery</a></p>
<p class="muted">${shown.note}</p><pre tabindex="0" aria-label="Body" dir="auto">${shown.text}</pre>`;
  return page(200, `Body of ${isolated(key.externalId)}`, body, 'inbox');
}
