/** @module The overview: the two figures, counts per provider and status, stuck claims, the inbox's dead and pending deliveries, the last hour, the ignored events. */
import type { InboxReader } from '@webhook-idempotency/core/inbox';
import { activityCharts } from '../chart';
import { twoFigures } from '../figures';
import { age, duration, plural, utc } from '../format';
import { type Html, html, stored } from '../html';
import { ignoredSection } from '../ignored';
import { link, page, type Reply, type View } from '../layout';
import type { DashboardReceipts } from '../types';

const HOUR = 3_600_000;
const MINUTE = 60_000;
/** Inbox deliveries counted at most, per status: past it the overview says "1000+". */
const COUNT_CAP = 1000;

async function inboxCounts(inbox: InboxReader) {
  const [dead, pending] = await Promise.all([
    inbox.list({ status: 'dead', limit: COUNT_CAP + 1 }),
    inbox.list({ status: 'pending', limit: COUNT_CAP + 1 }),
  ]);
  const count = (n: number) => (n > COUNT_CAP ? `${COUNT_CAP}+` : String(n));
  return { dead: count(dead.length), pending: count(pending.length), firstDead: dead.slice(0, 10) };
}

type Status = Awaited<ReturnType<DashboardReceipts['status']>>;
type Queue = Awaited<ReturnType<typeof inboxCounts>>;
type Listed = Awaited<ReturnType<DashboardReceipts['list']>>;

/** A link to the receipts list filtered by `params`. */
const listOf = (view: View, params: Record<string, string>) => link(view, '/receipts', params);

/** A section of the overview: its heading, then `content`. */
const section = (id: string, title: string, content: Html | string) =>
  html`<section aria-labelledby="h-${id}"><h2 id="h-${id}">${title}</h2>
${content}</section>`;

/** A row's link to an action's confirmation page; nothing on a read-only dashboard. */
const actionLink = (
  view: View,
  path: string,
  item: { provider: string; externalId: string },
  label: string,
) =>
  view.readOnly
    ? ''
    : html`<a href="${link(view, path, { provider: item.provider, id: item.externalId })}">${label}</a>`;

/** One figure as a card, a link to what it counts when there is one. */
const card = (label: string, value: string | number, href?: string) =>
  html`<div class="card"><span class="big">${href ? html`<a href="${href}">${value}</a>` : value}</span>${label}</div>`;

/** "Now": the receipts by status, and the inbox's dead and pending deliveries. */
function nowSection(view: View, totals: Status['totals'], queue: Queue | undefined) {
  const list = (params: Record<string, string>) => listOf(view, params);
  return html`<section aria-labelledby="h-now"><h2 id="h-now">Now</h2><div class="cards">
${card('processing', totals.processing, list({ status: 'processing' }))}
${card(`stuck (processing over ${age(view.staleAfterMs)})`, totals.stuck, list({ status: 'stuck' }))}
${card('completed', totals.completed, list({ status: 'completed' }))}
${card('failed', totals.failed, list({ status: 'failed' }))}
${queue ? card('dead deliveries', queue.dead, link(view, '/deliveries', { status: 'dead' })) : ''}
${queue ? card('pending deliveries', queue.pending, link(view, '/deliveries', { status: 'pending' })) : ''}
</div></section>`;
}

/** "Receipts by provider": each provider's counts by status, each a link to those receipts. */
function providersSection(view: View, counts: Status['providers']) {
  const list = (params: Record<string, string>) => listOf(view, params);
  const count = (n: number, params: Record<string, string>) =>
    n ? html`<a href="${list(params)}">${n}</a>` : html`${n}`;
  const providers = counts.map(
    (
      c,
    ) => html`<tr><th scope="row" class="wrap"><a href="${list({ provider: c.provider })}">${stored(c.provider)}</a></th>
<td class="n">${count(c.processing, { provider: c.provider, status: 'processing' })}</td>
<td class="n${c.stuck ? ' bad' : ''}">${count(c.stuck, { provider: c.provider, status: 'stuck' })}</td>
<td class="n">${count(c.completed, { provider: c.provider, status: 'completed' })}</td>
<td class="n${c.failed ? ' bad' : ''}">${count(c.failed, { provider: c.provider, status: 'failed' })}</td>
<td>${c.oldestProcessingAgeMs === null ? '-' : age(c.oldestProcessingAgeMs)}</td></tr>`,
  );
  return section(
    'providers',
    'Receipts by provider',
    providers.length
      ? html`<div class="scroll"><table><thead><tr><th scope="col">provider</th><th scope="col" class="n">processing</th><th scope="col" class="n">stuck</th><th scope="col" class="n">completed</th><th scope="col" class="n">failed</th><th scope="col">oldest processing</th></tr></thead><tbody>${providers}</tbody></table></div>`
      : html`<p>No receipts yet.</p>`,
  );
}

/** "Last hour": receipts finished and failed, the handler's times, and the activity charts. */
function lastHourSection(window: Status['window'], buckets: Parameters<typeof activityCharts>[0]) {
  const times = window.handlerTime;
  return section(
    'hour',
    'Last hour',
    html`<p>${plural(window.completed + window.failed, 'receipt')} finished, ${window.failed} failed${
      window.failureShare === null ? '' : ` (${(window.failureShare * 100).toFixed(1)} %)`
    }${times ? `; handler time p50 ${duration(times.p50Ms)}, p95 ${duration(times.p95Ms)}, longest ${duration(times.maxMs)}` : ''}.</p>
${activityCharts(buckets)}`,
  );
}

/** "Stuck receipts": the oldest claims past `staleAfterMs`, each with its release. */
function stuckSection(view: View, stuck: Listed) {
  const rows = stuck.map(
    (
      r,
    ) => html`<tr><td class="wrap">${stored(r.provider)}</td><td class="wrap id"><a href="${link(view, '/receipt', { provider: r.provider, id: r.externalId })}">${stored(r.externalId)}</a></td>
<td class="n" data-label="attempt">${r.attempts}</td><td data-label="claimed">${age(r.claimAgeMs)} ago</td><td>${actionLink(view, '/receipt/release', r, 'Release…')}</td></tr>`,
  );
  return section(
    'stuck',
    'Stuck receipts',
    rows.length
      ? html`<p>Processing for longer than ${age(view.staleAfterMs)}: their worker is presumed dead. Releasing one marks it failed, so the provider's next delivery runs the handler again.</p>
<div class="scroll list"><table class="rows"><thead><tr><th scope="col">provider</th><th scope="col">id</th><th scope="col" class="n">attempt</th><th scope="col">claimed</th><th scope="col"><span class="muted">action</span></th></tr></thead><tbody>${rows}</tbody></table></div>`
      : html`<p>None.</p>`,
  );
}

/** "Dead deliveries": the first ones the inbox gave up on, each with its retry, and the bulk retry. */
function deadSection(view: View, queue: Queue) {
  const rows = queue.firstDead.map(
    (
      d,
    ) => html`<tr><td class="wrap">${stored(d.provider)}</td><td class="wrap id"><a href="${link(view, '/delivery', { provider: d.provider, id: d.externalId })}">${stored(d.externalId)}</a></td>
<td data-label="died">${d.finishedAt ? `${utc(d.finishedAt)}` : '-'}</td><td class="wrap err">${d.lastError === null ? '' : stored(d.lastError)}</td><td>${actionLink(view, '/delivery/retry', d, 'Retry…')}</td></tr>`,
  );
  return section(
    'dead',
    'Dead deliveries',
    rows.length
      ? html`<div class="scroll list"><table class="rows"><thead><tr><th scope="col">provider</th><th scope="col">id</th><th scope="col">died</th><th scope="col">last error</th><th scope="col"><span class="muted">action</span></th></tr></thead><tbody>${rows}</tbody></table></div>
${view.readOnly ? '' : html`<p><a href="${link(view, '/deliveries/retry-dead')}">Retry dead deliveries in bulk…</a></p>`}`
      : html`<p>None.</p>`,
  );
}

/** GET `/`. */
export async function overview(
  view: View,
  receipts: DashboardReceipts,
  inbox: InboxReader | undefined,
  stuckAfterMs: number,
): Promise<Reply> {
  const { staleAfterMs } = view;
  const [status, activity, stuck, queue, ignored] = await Promise.all([
    receipts.status({ staleAfterMs, sinceMs: HOUR }),
    receipts.activity({ sinceMs: HOUR, bucketMs: MINUTE }),
    receipts.list({ stuckAfterMs: staleAfterMs, order: 'oldest', limit: 10 }),
    inbox ? inboxCounts(inbox) : undefined,
    ignoredSection(receipts),
  ]);
  const figures = await twoFigures(receipts, inbox, status, { staleAfterMs, stuckAfterMs });
  const body = html`<h1>Overview</h1>
${figures}
${nowSection(view, status.totals, queue)}
${providersSection(view, status.providers)}
${lastHourSection(status.window, activity.buckets)}
${ignored}
${stuckSection(view, stuck)}
${queue ? deadSection(view, queue) : ''}`;
  return page(200, 'Overview', body, 'overview');
}
