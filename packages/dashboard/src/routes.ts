/**
 * @module What each path under the dashboard serves: the pages read with GET (and HEAD), the
 * actions (a confirmation page on GET, the operation on POST) and the static assets. The routing
 * tables are Maps: a path is the request's, and a lookup in a plain object would find
 * `constructor` or `__proto__` too.
 */
import { SCRIPT, STYLESHEET } from './assets';
import { problem, type Reply, type View } from './layout';
import type { DashboardConfig } from './options';
import * as deliveryActions from './pages/delivery-actions';
import { deliveryBody, deliveryDetail, deliveryList } from './pages/deliveries';
import { messageDetail, messageList, messagePayload } from './pages/outbox';
import { overview } from './pages/overview';
import * as receiptActions from './pages/receipt-actions';
import { receiptAnswer, receiptDetail, receiptList } from './pages/receipts';

/** One page or one step of an action: the view, the query, the form (empty on GET), the dashboard's options. */
export type Route = (
  view: View,
  query: URLSearchParams,
  form: URLSearchParams,
  config: DashboardConfig<unknown>,
) => Promise<Reply>;

/** An action: its confirmation page (GET) and the operation (POST). */
export interface Action {
  readonly confirm: Route;
  readonly perform: Route;
}

/** A route on the inbox or the outbox store. */
type StoreRoute = (
  store: NonNullable<DashboardConfig['inbox']>,
  ...rest: Parameters<Route>
) => Promise<Reply>;

/** A route that needs the inbox (or the outbox): a `404` page when the dashboard was mounted without one. */
const needs =
  (name: 'inbox' | 'outbox', route: StoreRoute): Route =>
  (view, query, form, config) => {
    const store = config[name];
    return store
      ? route(store, view, query, form, config)
      : Promise.resolve(
          problem(404, `No ${name}`, `This dashboard was mounted without an ${name}.`),
        );
  };
const needInbox = (route: StoreRoute) => needs('inbox', route);
const needOutbox = (route: StoreRoute) => needs('outbox', route);

/** Pages read with GET (and HEAD), by path. */
export const PAGES = new Map<string, Route>(
  Object.entries({
    '/': (view, _q, _f, c) => overview(view, c.receipts, c.inbox, c.stuckAfterMs),
    '/receipts': (view, q, _f, c) => receiptList(view, c.receipts, q),
    '/receipt': (view, q, _f, c) => receiptDetail(view, c.receipts, c.inbox, q),
    '/receipt/answer': (view, q, _f, c) => receiptAnswer(view, c.receipts, q),
    '/deliveries': needInbox((inbox, view, q, _f, c) => deliveryList(view, inbox, c.receipts, q)),
    '/delivery': needInbox((inbox, view, q, _f, c) => deliveryDetail(view, inbox, c.receipts, q)),
    '/delivery/body': needInbox((inbox, view, q) => deliveryBody(view, inbox, q)),
    '/outbox': needOutbox((outbox, view, q) => messageList(view, outbox, q)),
    '/outbox/message': needOutbox((outbox, view, q) => messageDetail(view, outbox, q)),
    '/outbox/message/payload': needOutbox((outbox, view, q) => messagePayload(view, outbox, q)),
  } satisfies Record<string, Route>),
);

/** The actions by path: a confirmation page on GET, the operation on POST. */
export const ACTIONS = new Map<string, Action>(
  Object.entries({
    '/receipt/release': {
      confirm: (view, q, _f, c) => receiptActions.confirmRelease(view, c.receipts, q),
      perform: (view, q, f, c) => receiptActions.release(view, c.receipts, q, f),
    },
    '/delivery/retry': {
      confirm: needInbox((inbox, view, q) => deliveryActions.confirmRetry(view, inbox, q)),
      perform: needInbox((inbox, view, q, f) => deliveryActions.retry(view, inbox, q, f)),
    },
    '/delivery/redeliver': {
      confirm: needInbox((inbox, view, q) => deliveryActions.confirmRedeliver(view, inbox, q)),
      perform: needInbox((inbox, view, q, f, c) =>
        deliveryActions.redeliver(view, { inbox, receipts: c.receipts }, q, f),
      ),
    },
    '/deliveries/retry-dead': {
      confirm: needInbox((inbox, view, q) => deliveryActions.confirmRetryDead(view, inbox, q)),
      perform: needInbox((inbox, view, q) => deliveryActions.retryDead(view, inbox, q)),
    },
    '/outbox/retry': {
      confirm: needOutbox((outbox, view, q) =>
        deliveryActions.confirmRetryMessage(view, outbox, q),
      ),
      perform: needOutbox((outbox, view, q, f) => deliveryActions.retryMessage(view, outbox, q, f)),
    },
    '/purge': {
      confirm: (view, q, _f, c) => receiptActions.confirmPurge(view, c.receipts, q),
      perform: (view, q, _f, c) => receiptActions.purge(view, c.receipts, q),
    },
  } satisfies Record<string, Action>),
);

/** The stylesheet and the script, by path: the only things served without a page around them. */
export const ASSETS = new Map<string, { type: string; body: Buffer }>([
  ['/assets/dashboard.css', { type: 'text/css; charset=utf-8', body: Buffer.from(STYLESHEET) }],
  ['/assets/dashboard.js', { type: 'text/javascript; charset=utf-8', body: Buffer.from(SCRIPT) }],
]);
