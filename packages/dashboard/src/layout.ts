/** @module The page shell (navigation, stylesheet, script), links into the dashboard and its forms' common parts. */
import { CSRF_FIELD } from './security';
import { type Html, html, stored } from './html';

/** What every page is rendered with. */
export interface View {
  /** The dashboard's path, without a trailing slash. */
  readonly base: string;
  /** This page's CSP nonce. */
  readonly nonce: string;
  /** The CSRF token its forms carry. */
  readonly token: string;
  readonly readOnly: boolean;
  readonly hasInbox: boolean;
  readonly hasOutbox: boolean;
  readonly staleAfterMs: number;
}

/** What a route answers: a page, or a redirect after an action (303, so a reload does not repeat it). */
export type Reply =
  | { readonly status: number; readonly title: string; readonly body: Html; readonly nav?: Section }
  | { readonly redirect: string };

/** The navigation's sections. */
export type Section = 'overview' | 'receipts' | 'inbox' | 'outbox' | 'purge';

type Params = Readonly<Record<string, string | number | boolean | undefined | null>>;

/** A link to `path` under the dashboard, with `params` (empty ones left out) as its query. */
export function link(view: Pick<View, 'base'>, path: string, params: Params = {}): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params))
    if (value !== undefined && value !== null && value !== '' && value !== false)
      query.set(name, String(value));
  const search = query.toString();
  return `${view.base}${path}${search ? `?${search}` : ''}`;
}

/** A page's parts: `<main>` content and its section. */
export function page(status: number, title: string, body: Html, nav?: Section): Reply {
  return nav ? { status, title, body, nav } : { status, title, body };
}

/** The hidden CSRF field of a form. */
export const csrfField = (view: View): Html =>
  html`<input type="hidden" name="${CSRF_FIELD}" value="${view.token}">`;

/** A status as a badge (its word, and a colour that only repeats it). */
export const badge = (status: string): Html =>
  html`<span class="badge s-${status}">${status}</span>`;

/** The whole document around `body`. */
export function layout(view: View, title: string, body: Html, nav?: Section): Html {
  const item = (section: Section, path: string, label: string) =>
    html`<li><a href="${link(view, path)}"${nav === section ? html` aria-current="page"` : ''}>${label}</a></li>`;
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<title>${title} · webhook-idempotency</title>
<link rel="stylesheet" href="${link(view, '/assets/dashboard.css')}" nonce="${view.nonce}">
<script src="${link(view, '/assets/dashboard.js')}" nonce="${view.nonce}" defer></script>
</head><body>
<a class="skip" href="#main">Skip to content</a>
<header><span class="brand">webhook-idempotency${view.readOnly ? html` <span class="badge">read-only</span>` : ''}</span>
<nav aria-label="Dashboard"><ul>${item('overview', '/', 'Overview')}${item('receipts', '/receipts', 'Receipts')}${
    view.hasInbox ? item('inbox', '/deliveries', 'Inbox') : ''
  }${view.hasOutbox ? item('outbox', '/outbox', 'Outbox') : ''}${view.readOnly ? '' : item('purge', '/purge', 'Purge')}</ul></nav></header>
<main id="main" tabindex="-1">
${body}
</main></body></html>`;
}

/** A page that says what went wrong, and nothing more (no driver message, no stack). */
export function problem(status: number, title: string, message: string | Html): Reply {
  return page(
    status,
    title,
    html`<h1>${title}</h1><p class="notice error" role="alert">${message}</p>`,
  );
}

/** A receipt's or a delivery's key as page text: its provider and its id, each isolated ({@link stored}). */
export const keyText = (key: { provider: string; externalId: string }): Html =>
  html`${stored(key.provider)} ${stored(key.externalId)}`;

/** The 404 for a receipt that is not in the table. */
export const noReceipt = (key: { provider: string; externalId: string }): Reply =>
  problem(404, 'No such receipt', html`No receipt ${keyText(key)}.`);

/** The 404 for a delivery that is not in the inbox. */
export const noDelivery = (key: { provider: string; externalId: string }): Reply =>
  problem(404, 'No such delivery', html`No delivery ${keyText(key)} in the inbox.`);

/** The 404 for a message that is not in the outbox (its sender and effect key). */
export const noMessage = (key: { provider: string; externalId: string }): Reply =>
  problem(404, 'No such message', html`No message ${keyText(key)} in the outbox.`);
