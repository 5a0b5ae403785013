/**
 * @module The overview's first section: the two figures to watch in production, over the last hour
 * and the last day, read from the database and drawn on the server. The answer time is the
 * receipts' time from claim to recorded answer (p95); the backlog is the inbox's deliveries stuck
 * past the threshold now, and the share of those finished in each window that took longer.
 */
import type { InboxBacklog, InboxReader } from '@webhook-idempotency/core/inbox';
import type { ReceiptsStatus } from '@webhook-idempotency/sql';
import { hourlyChart } from './chart';
import { age, duration } from './format';
import { type Html, html, stored } from './html';
import type { DashboardReceipts } from './types';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** What the section reads, beyond the last hour's receipts status the overview has already. */
async function read(
  receipts: DashboardReceipts,
  inbox: InboxReader | undefined,
  limits: { readonly staleAfterMs: number; readonly stuckAfterMs: number },
) {
  const backlog = (finishedWithinMs: number) =>
    inbox && typeof inbox.backlog === 'function'
      ? inbox.backlog({ stuckAfterMs: limits.stuckAfterMs, finishedWithinMs })
      : Promise.resolve(undefined);
  const [day, activity, hourBacklog, dayBacklog] = await Promise.all([
    receipts.status({ staleAfterMs: limits.staleAfterMs, sinceMs: DAY }),
    receipts.activity({ sinceMs: DAY, bucketMs: HOUR }),
    backlog(HOUR),
    backlog(DAY),
  ]);
  return { day, activity, hourBacklog, dayBacklog };
}

const p95 = (status: ReceiptsStatus): string =>
  status.window.handlerTime ? duration(status.window.handlerTime.p95Ms) : '-';

/** `late of finished (share)` over every provider of a backlog. */
function lateShare(backlog: InboxBacklog): string {
  const finished = backlog.providers.reduce((n, p) => n + p.finished, 0);
  const late = backlog.providers.reduce((n, p) => n + p.late, 0);
  return finished === 0
    ? '0'
    : `${late} of ${finished} (${((late / finished) * 100).toFixed(1)} %)`;
}

const card = (label: string, value: string | number, bad = false) =>
  html`<div class="card"><span class="big${bad ? ' bad' : ''}">${value}</span>${label}</div>`;

/** Per provider: the backlog now, and the late and dead ones of the last hour and day. */
function providerTable(hour: InboxBacklog, day: InboxBacklog): Html {
  const rows = day.providers.map((p) => {
    const h = hour.providers.find((q) => q.provider === p.provider);
    return html`<tr><th scope="row" class="wrap">${stored(p.provider)}</th><td class="n">${p.unfinished}</td>
<td class="n${p.stuck ? ' bad' : ''}">${p.stuck}</td><td>${p.oldestAgeMs === null ? '-' : age(p.oldestAgeMs)}</td>
<td class="n">${h ? `${h.late} / ${h.finished}` : '0 / 0'}</td><td class="n">${p.late} / ${p.finished}</td><td class="n${p.died ? ' bad' : ''}">${p.died}</td></tr>`;
  });
  if (rows.length === 0) return html`<p>No inbox deliveries in the last day.</p>`;
  return html`<div class="scroll"><table><caption>Inbox deliveries by provider</caption><thead><tr><th scope="col">provider</th><th scope="col" class="n">unfinished</th><th scope="col" class="n">stuck</th><th scope="col">oldest</th><th scope="col" class="n">late / finished, hour</th><th scope="col" class="n">late / finished, day</th><th scope="col" class="n">dead, day</th></tr></thead><tbody>${rows}</tbody></table></div>`;
}

/** The section: both figures as cards for the hour and the day, the inbox by provider, the day's chart. */
export async function twoFigures(
  receipts: DashboardReceipts,
  inbox: InboxReader | undefined,
  hour: ReceiptsStatus,
  limits: { readonly staleAfterMs: number; readonly stuckAfterMs: number },
): Promise<Html> {
  const { day, activity, hourBacklog, dayBacklog } = await read(receipts, inbox, limits);
  const threshold = age(limits.stuckAfterMs);
  const stuckNow = dayBacklog?.providers.reduce((n, p) => n + p.stuck, 0) ?? 0;
  const oldest = Math.max(0, ...(dayBacklog?.providers.map((p) => p.oldestAgeMs ?? 0) ?? []));
  const backlogCards =
    dayBacklog && hourBacklog
      ? html`${card(`stuck deliveries now (unfinished over ${threshold})`, stuckNow, stuckNow > 0)}
${card('oldest unfinished delivery', oldest ? age(oldest) : '-')}
${card(`finished later than ${threshold}, last hour`, lateShare(hourBacklog))}
${card(`finished later than ${threshold}, last day`, lateShare(dayBacklog))}`
      : card(
          `stuck claims now (processing over ${age(limits.staleAfterMs)})`,
          hour.totals.stuck,
          hour.totals.stuck > 0,
        );
  return html`<section aria-labelledby="h-figures"><h2 id="h-figures">The two figures</h2>
<p>How long webhooks take to answer (p95 of the receipts' time from claim to recorded answer), and the deliveries stuck longer than normal.</p>
<div class="cards">
${card('answer time p95, last hour', p95(hour))}
${card('answer time p95, last day', p95(day))}
${backlogCards}
</div>
${dayBacklog && hourBacklog ? providerTable(hourBacklog, dayBacklog) : ''}
${hourlyChart(activity.buckets)}</section>`;
}
