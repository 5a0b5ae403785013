/**
 * @module The last hour as two bar charts in inline SVG, drawn on the server: deliveries per
 * minute (completed and failed) and the completed ones' mean handler time; and the last day's
 * answer time per hour. Each bar has a title,
 * and a data table says the same without the picture; the script only adds a keyboard readout.
 */
import type { ActivityBucket } from '@webhook-idempotency/sql';
import { duration } from './format';
import { type Html, html } from './html';

const WIDTH = 960;
const HEIGHT = 180;
const TOP = 12;
const BOTTOM = 20;
const LEFT = 36;

const minute = (date: Date) => date.toISOString().slice(11, 16);

/** One chart: `value` and `label` of each bucket, bars stacked when `second` is given. */
function bars(
  buckets: readonly ActivityBucket[],
  parts: { value: (b: ActivityBucket) => number; second?: (b: ActivityBucket) => number },
  label: (b: ActivityBucket) => string,
  kinds: [string, string?],
  axis: (n: number) => string,
  captionId: string,
): Html {
  const total = (b: ActivityBucket) => parts.value(b) + (parts.second?.(b) ?? 0);
  const max = Math.max(1, ...buckets.map(total));
  const step = (WIDTH - LEFT) / Math.max(1, buckets.length);
  const scale = (n: number) => (n / max) * (HEIGHT - TOP - BOTTOM);
  const base = HEIGHT - BOTTOM;
  const rects = buckets.map((b, i) => {
    const x = (LEFT + i * step + step * 0.1).toFixed(1);
    const w = (step * 0.8).toFixed(1);
    const h1 = scale(parts.value(b));
    const h2 = parts.second ? scale(parts.second(b)) : 0;
    const text = label(b);
    return html`<g><rect class="${kinds[0]}" x="${x}" y="${(base - h1).toFixed(1)}" width="${w}" height="${Math.max(h1, total(b) ? 0 : 1).toFixed(1)}" data-label="${text}"><title>${text}</title></rect>${
      h2 > 0
        ? html`<rect class="${kinds[1]}" x="${x}" y="${(base - h1 - h2).toFixed(1)}" width="${w}" height="${h2.toFixed(1)}"><title>${text}</title></rect>`
        : ''
    }</g>`;
  });
  const first = buckets[0];
  const last = buckets[buckets.length - 1];
  return html`<svg class="chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="${captionId}">
<line x1="${LEFT}" y1="${base}" x2="${WIDTH}" y2="${base}"></line>
<text x="0" y="${TOP + 4}">${axis(max)}</text><text x="0" y="${base}">0</text>
${first ? html`<text x="${LEFT}" y="${HEIGHT - 4}">${minute(first.start)}</text>` : ''}
${last ? html`<text x="${WIDTH - 34}" y="${HEIGHT - 4}">${minute(last.start)}</text>` : ''}
${rects}</svg>`;
}

/** Both charts of the overview, with their legends, readouts and data table. */
export function activityCharts(buckets: readonly ActivityBucket[]): Html {
  const deliveries = (b: ActivityBucket) =>
    `${minute(b.start)} UTC: ${b.completed} completed, ${b.failed} failed`;
  const times = (b: ActivityBucket) =>
    b.meanHandlerMs === null
      ? `${minute(b.start)} UTC: nothing completed`
      : `${minute(b.start)} UTC: mean ${duration(b.meanHandlerMs)}, longest ${duration(b.maxHandlerMs ?? 0)}`;
  const rows = buckets
    .filter((b) => b.completed + b.failed > 0)
    .map(
      (b) =>
        html`<tr><th scope="row">${minute(b.start)}</th><td class="n">${b.completed}</td><td class="n">${b.failed}</td><td class="n">${b.meanHandlerMs === null ? '-' : duration(b.meanHandlerMs)}</td><td class="n">${b.maxHandlerMs === null ? '-' : duration(b.maxHandlerMs)}</td></tr>`,
    );
  return html`<figure data-chart>
<figcaption id="chart-deliveries">Deliveries per minute</figcaption>
<p class="legend"><span><span class="key ok"></span>completed</span><span><span class="key bad"></span>failed</span></p>
${bars(buckets, { value: (b) => b.completed, second: (b) => b.failed }, deliveries, ['ok', 'bad'], String, 'chart-deliveries')}
<p class="readout muted" aria-live="polite"></p>
</figure>
<figure data-chart>
<figcaption id="chart-times">Mean handler time per minute (completed)</figcaption>
${bars(buckets, { value: (b) => b.meanHandlerMs ?? 0 }, times, ['time'], duration, 'chart-times')}
<p class="readout muted" aria-live="polite"></p>
</figure>
<details><summary>The same as a table (${rows.length} minutes with deliveries)</summary>
<div class="scroll"><table><caption>Finished receipts per minute, last hour (UTC)</caption>
<thead><tr><th scope="col">minute</th><th scope="col" class="n">completed</th><th scope="col" class="n">failed</th><th scope="col" class="n">mean time</th><th scope="col" class="n">longest</th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="5">Nothing finished in the last hour.</td></tr>`}</tbody></table></div></details>`;
}

/** The last day's answer time: the completed receipts' mean and longest time per hour. */
export function hourlyChart(buckets: readonly ActivityBucket[]): Html {
  const times = (b: ActivityBucket) =>
    b.meanHandlerMs === null
      ? `${minute(b.start)} UTC: nothing completed`
      : `${minute(b.start)} UTC: mean ${duration(b.meanHandlerMs)}, longest ${duration(b.maxHandlerMs ?? 0)}, ${b.completed} completed`;
  return html`<figure data-chart>
<figcaption id="chart-day">Answer time per hour, last day (mean, completed receipts)</figcaption>
${bars(buckets, { value: (b) => b.meanHandlerMs ?? 0 }, times, ['time'], duration, 'chart-day')}
<p class="readout muted" aria-live="polite"></p>
</figure>`;
}
