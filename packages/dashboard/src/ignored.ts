/**
 * @module The overview's ignored events: what route sets acknowledged with nothing stored or run
 * (no route takes the event) over the last day, per provider and its most frequent types. The
 * types are the senders' own text: shown escaped, in their own `<bdi>`, and cut to a bounded length.
 */
import { plural, utc } from './format';
import { type Html, html, stored } from './html';
import type { DashboardReceipts } from './types';

const DAY = 86_400_000;
/** Types listed: the most frequent. */
const TOP_TYPES = 10;
/** Characters of a type shown (the writers keep 100). */
const TYPE_CHARS = 100;

const shown = (type: string): string => {
  const points = Array.from(type);
  return points.length > TYPE_CHARS ? `${points.slice(0, TYPE_CHARS).join('')}…` : type;
};

/** The section, or nothing when the receipts admin reads no ignored counts. */
export async function ignoredSection(receipts: DashboardReceipts): Promise<Html | ''> {
  if (typeof receipts.ignored !== 'function') return '';
  const heading = html`<h2 id="h-ignored">Ignored events, last day</h2>`;
  // Best effort: counts that cannot be read are said; the rest of the overview is shown.
  const report = await receipts.ignored({ sinceMs: DAY }).catch(() => undefined);
  if (report === undefined)
    return html`<section aria-labelledby="h-ignored">${heading}
<p class="bad">The ignored-event counts could not be read (see the application's store errors).</p></section>`;
  const open = (body: Html) =>
    html`<section aria-labelledby="h-ignored">${heading}
<p>Events no route takes: answered 200, nothing stored, no handler run. Counted per hour since ${utc(report.since)}; each process writes its counts every few seconds.</p>
${body}</section>`;
  if (!report.counted)
    return open(
      html`<p class="bad">Not counted: table ${stored(report.table)} is missing. Create it with <code>webhook-idempotency migrate</code>.</p>`,
    );
  if (report.total === 0) return open(html`<p>None.</p>`);
  const byProvider = new Map<string, number>();
  for (const row of report.events)
    byProvider.set(row.provider, (byProvider.get(row.provider) ?? 0) + row.count);
  const providers = [...byProvider].map(
    ([provider, count]) =>
      html`<tr><th scope="row" class="wrap">${stored(provider)}</th><td class="n">${count}</td></tr>`,
  );
  const types = report.events
    .slice(0, TOP_TYPES)
    .map(
      (row) =>
        html`<tr><td class="wrap">${stored(row.provider)}</td><td class="wrap id">${stored(shown(row.type))}</td><td class="n">${row.count}</td><td>${utc(row.lastHour)}</td></tr>`,
    );
  return open(html`<p>${plural(report.total, 'event')} ignored.</p>
<div class="scroll"><table><caption>Ignored events by provider</caption><thead><tr><th scope="col">provider</th><th scope="col" class="n">ignored</th></tr></thead><tbody>${providers}</tbody></table></div>
<div class="scroll list"><table class="rows"><caption>Most frequent ignored types</caption><thead><tr><th scope="col">provider</th><th scope="col">event type</th><th scope="col" class="n">ignored</th><th scope="col">last hour</th></tr></thead><tbody>${types}</tbody></table></div>`);
}
