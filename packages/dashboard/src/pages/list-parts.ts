/**
 * @module What the paged lists (inbox deliveries, outbox messages, receipts) share: the page size,
 * the search form and its fields, the table around their rows, the link to the next page and the
 * pager.
 */
import { type Html, html } from '../html';
import { link, type View } from '../layout';
import { MAX_KEY_FIELD, timeValue } from '../query';

/** Rows on one page of a list. */
export const PAGE = 50;

/**
 * A list's search form at `path`, labelled `label`: its `fields`, one a line, then the button that
 * searches and the link that clears them.
 */
export function searchForm(view: View, path: string, label: string, fields: readonly Html[]): Html {
  return html`<form class="filters" method="get" action="${link(view, path)}" role="search" aria-label="${label}">
${fields.map((field) => html`${field}\n`)}<button type="submit">Search</button> <a href="${link(view, path)}">Clear</a>
</form>`;
}

/** A text field of a search form (a provider, an id), holding `value`. */
export const textField = (label: string, name: string, value: string | undefined): Html =>
  html`<label>${label}<input name="${name}" value="${value ?? ''}" maxlength="${MAX_KEY_FIELD}" autocomplete="off" dir="auto"></label>`;

/** A UTC time field of a search form, holding `value`. */
export const timeField = (label: string, name: string, value: Date | undefined): Html =>
  html`<label>${label}<input type="datetime-local" name="${name}" value="${timeValue(value) ?? ''}"></label>`;

/** The status select of a search form, its `options` given. */
export const statusField = (options: Html): Html =>
  html`<label>Status<select name="status">${options}</select></label>`;

/** The options of a status select: `any`, then each of `statuses`, `status` selected. */
export function statusOptions(statuses: readonly string[], status: string | undefined): Html {
  const option = (value: string) =>
    html`<option value="${value}"${(status ?? '') === value ? html` selected` : ''}>${value || 'any'}</option>`;
  return html`${option('')}${statuses.map(option)}`;
}

/**
 * A list's table: its headings, then `rows`; nothing when there are none. The headings are one
 * text, separated by commas, a column of numbers (right-aligned) marked `#`:
 * `'provider,id,#attempts'`.
 */
export function rowsTable(headings: string, rows: readonly Html[]): Html | '' {
  if (!rows.length) return '';
  const th = (h: string) =>
    h.startsWith('#')
      ? html`<th scope="col" class="n">${h.slice(1)}</th>`
      : html`<th scope="col">${h}</th>`;
  return html`<div class="scroll list"><table class="rows"><thead><tr>${headings.split(',').map(th)}</tr></thead><tbody>${rows}</tbody></table></div>`;
}

/** The link to the page after `rows` (at `after` of its last row), when `rows` filled a page. */
export function nextPage<R>(
  view: View,
  path: string,
  filters: Parameters<typeof link>[2],
  rows: readonly R[],
  after: (last: R) => string | number,
): string | undefined {
  const last = rows[rows.length - 1];
  return rows.length === PAGE && last
    ? link(view, path, { ...filters, after: after(last) })
    : undefined;
}

/** A list's pager: back to its first page from a later one, on to `next` where there is one. */
export function pager(
  view: View,
  path: string,
  filters: Parameters<typeof link>[2],
  later: boolean,
  next: string | undefined,
): Html {
  return html`<nav class="pager" aria-label="Pages">${later ? html`<a href="${link(view, path, filters)}">First page</a>` : ''}${next ? html`<a href="${next}" rel="next">Next page</a>` : ''}</nav>`;
}
