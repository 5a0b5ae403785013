/**
 * @module `createDashboard(options)`: the framework-free core every mount calls. A request record
 * in, a response record out: authorization first (nothing is read or done for a request it
 * refuses), then the route, the CSRF check of every action, and the page in its shell with the
 * security headers.
 */
import { ConfigError, isIdempotencyError } from '@webhook-idempotency/core';
import type { HttpResponseRecord } from '@webhook-idempotency/core/adapter';
import { SCRIPT, STYLESHEET } from './assets';
import { layout, problem, type Reply, type View } from './layout';
import { type DashboardConfig, resolveDashboardOptions } from './options';
import * as actions from './pages/actions';
import { deliveryBody, deliveryDetail, deliveryList } from './pages/deliveries';
import { overview } from './pages/overview';
import { receiptAnswer, receiptDetail, receiptList } from './pages/receipts';
import { BadInput } from './query';
import { commonHeaders, Csrf, CSRF_FIELD, crossSite, newNonce, pageHeaders } from './security';
import type { DashboardOptions, DashboardRequest } from './types';

/** The dashboard as its mounts use it. */
export interface Dashboard<Native = unknown> {
  /** The path it is mounted at, without a trailing slash. */
  readonly basePath: string;
  /** True when `url` (path and query) is one of the dashboard's: the mounts hand it only those. */
  matches(url: string): boolean;
  /** Answers one request. Never rejects: a failure is a page with the right status. */
  handle(request: DashboardRequest<Native>): Promise<HttpResponseRecord>;
}

type Route<Native> = (
  view: View,
  query: URLSearchParams,
  form: URLSearchParams,
  config: DashboardConfig<Native>,
) => Promise<Reply>;

const needInbox =
  <Native>(
    route: (
      inbox: NonNullable<DashboardConfig['inbox']>,
      ...rest: Parameters<Route<Native>>
    ) => Promise<Reply>,
  ): Route<Native> =>
  (view, query, form, config) =>
    config.inbox
      ? route(config.inbox, view, query, form, config)
      : Promise.resolve(problem(404, 'No inbox', 'This dashboard was mounted without an inbox.'));

/**
 * Pages read with GET (and HEAD), by path. The routing tables are Maps: a path is the request's,
 * and a lookup in a plain object would find `constructor` or `__proto__` too.
 */
const PAGES = new Map<string, Route<unknown>>(
  Object.entries({
    '/': (view, _q, _f, c) => overview(view, c.receipts, c.inbox, c.stuckAfterMs),
    '/receipts': (view, q, _f, c) => receiptList(view, c.receipts, q),
    '/receipt': (view, q, _f, c) => receiptDetail(view, c.receipts, c.inbox, q),
    '/receipt/answer': (view, q, _f, c) => receiptAnswer(view, c.receipts, q),
    '/deliveries': needInbox((inbox, view, q, _f, c) => deliveryList(view, inbox, c.receipts, q)),
    '/delivery': needInbox((inbox, view, q, _f, c) => deliveryDetail(view, inbox, c.receipts, q)),
    '/delivery/body': needInbox((inbox, view, q) => deliveryBody(view, inbox, q)),
  } satisfies Record<string, Route<unknown>>),
);

/** The actions by path: a confirmation page on GET, the operation on POST. */
const ACTIONS = new Map<string, { confirm: Route<unknown>; perform: Route<unknown> }>(
  Object.entries({
    '/receipt/release': {
      confirm: (view, q, _f, c) => actions.confirmRelease(view, c.receipts, q),
      perform: (view, q, f, c) => actions.release(view, c.receipts, q, f),
    },
    '/delivery/retry': {
      confirm: needInbox((inbox, view, q) => actions.confirmRetry(view, inbox, q)),
      perform: needInbox((inbox, view, q, f) => actions.retry(view, inbox, q, f)),
    },
    '/delivery/redeliver': {
      confirm: needInbox((inbox, view, q) => actions.confirmRedeliver(view, inbox, q)),
      perform: needInbox((inbox, view, q, f, c) =>
        actions.redeliver(view, inbox, c.receipts, q, f),
      ),
    },
    '/deliveries/retry-dead': {
      confirm: needInbox((inbox, view, q) => actions.confirmRetryDead(view, inbox, q)),
      perform: needInbox((inbox, view, q) => actions.retryDead(view, inbox, q)),
    },
    '/purge': {
      confirm: (view, q, _f, c) => actions.confirmPurge(view, c.receipts, q),
      perform: (view, q, _f, c) => actions.purge(view, c.receipts, q),
    },
  } satisfies Record<string, { confirm: Route<unknown>; perform: Route<unknown> }>),
);

const ASSETS = new Map<string, { type: string; body: Buffer }>([
  ['/assets/dashboard.css', { type: 'text/css; charset=utf-8', body: Buffer.from(STYLESHEET) }],
  ['/assets/dashboard.js', { type: 'text/javascript; charset=utf-8', body: Buffer.from(SCRIPT) }],
]);

const text = (
  status: number,
  message: string,
  extra: Record<string, string> = {},
): HttpResponseRecord => ({
  status,
  headers: { 'content-type': 'text/plain; charset=utf-8', ...commonHeaders, ...extra },
  body: Buffer.from(message),
});

/** The form fields of a POST: its urlencoded bytes, or what an application's body parser made of them. */
function formOf(request: DashboardRequest): URLSearchParams {
  if (request.rawBody !== undefined) return new URLSearchParams(request.rawBody.toString('utf8'));
  const parsed = request.body;
  const form = new URLSearchParams();
  if (typeof parsed === 'object' && parsed !== null && !Buffer.isBuffer(parsed))
    for (const [name, value] of Object.entries(parsed))
      if (typeof value === 'string') form.set(name, value);
  return form;
}

/**
 * Builds the dashboard's core: what `expressDashboard`, `fastifyDashboard`, `koaDashboard`,
 * `honoDashboard` and `fetchDashboard` translate to and from. Refuses to be built without
 * `authorize`.
 * @throws {ConfigError} naming a missing or invalid option.
 * @example
 * const dashboard = createDashboard({ basePath: '/admin/webhooks', authorize, receipts: new ReceiptsAdmin(db) });
 * const answer = await dashboard.handle({ method: 'GET', url: '/admin/webhooks/', headers, rawBody: undefined, body: undefined, native: req, secure: false });
 * @see packages/dashboard/README.md
 */
export function createDashboard<Native = unknown>(
  options: DashboardOptions<Native>,
): Dashboard<Native> {
  const config = resolveDashboardOptions(options);
  const { basePath } = config;
  const csrf = new Csrf(config.secret, basePath || '/');
  const config_ = config as DashboardConfig<unknown>;

  const render = (
    view: View,
    reply: Reply,
    setCookie: string | undefined,
    head: boolean,
  ): HttpResponseRecord => {
    const extra: Record<string, string> = setCookie ? { 'set-cookie': setCookie } : {};
    if ('redirect' in reply)
      return {
        status: 303,
        headers: { ...commonHeaders, location: reply.redirect, ...extra },
        body: Buffer.alloc(0),
      };
    const document = layout(view, reply.title, reply.body, reply.nav);
    return {
      status: reply.status,
      headers: { ...pageHeaders(view.nonce), ...extra },
      body: head ? Buffer.alloc(0) : Buffer.from(document.markup),
    };
  };

  async function route(request: DashboardRequest<Native>): Promise<HttpResponseRecord> {
    const [rawPath = '', search = ''] = request.url.split(/\?(.*)/s, 2);
    const path = rawPath.slice(basePath.length) || '/';
    const method = request.method.toUpperCase();
    const head = method === 'HEAD';
    const asset = ASSETS.get(path);
    if (asset && (method === 'GET' || head))
      return {
        status: 200,
        headers: { 'content-type': asset.type, ...commonHeaders },
        body: head ? Buffer.alloc(0) : asset.body,
      };
    const page = PAGES.get(path);
    const action = ACTIONS.get(path);
    if (!page && !action && !asset) return text(404, 'Not found');
    const allowed = page || asset ? 'GET, HEAD' : 'GET, HEAD, POST';
    if (!(method === 'GET' || head || (method === 'POST' && action)))
      return text(405, 'Method not allowed', { allow: allowed });
    const session = csrf.session(request.headers, request.secure);
    const view: View = {
      base: basePath,
      nonce: newNonce(),
      token: csrf.token(session.id),
      readOnly: config.readOnly,
      hasInbox: config.inbox !== undefined,
      staleAfterMs: config.staleAfterMs,
    };
    const query = new URLSearchParams(search);
    let reply: Reply;
    try {
      if (action && config.readOnly)
        reply = problem(403, 'Read-only', 'This dashboard is read-only: it changes nothing.');
      else if (method === 'POST') {
        const form = formOf(request);
        if (
          crossSite(request.headers) ||
          !csrf.verify(request.headers, form.get(CSRF_FIELD) ?? undefined)
        )
          reply = problem(
            403,
            'Refused',
            'The form did not come from this dashboard, or it expired: nothing was changed. Reload the page and try again.',
          );
        else reply = await action!.perform(view, query, form, config_);
      } else reply = await (page ?? action!.confirm)(view, query, new URLSearchParams(), config_);
    } catch (error) {
      reply = failure(error);
    }
    return render(view, reply, session.setCookie, head);
  }

  function failure(error: unknown): Reply {
    if (error instanceof BadInput) return problem(400, 'Bad request', error.message);
    if (isIdempotencyError(error) && error instanceof ConfigError)
      return problem(400, 'Bad request', `${error.option}: not accepted`);
    config.onError(error);
    const store = isIdempotencyError(error) && error.code === 'ERR_IDEMPOTENCY_STORE';
    return store
      ? problem(
          503,
          'The database did not answer',
          'Reading or writing the receipts failed. Nothing was changed that this page did not say; try again.',
        )
      : problem(500, 'Something went wrong', 'The dashboard failed to answer this request.');
  }

  return {
    basePath,
    matches(url: string): boolean {
      const path = url.split('?', 1)[0]!;
      return (
        path === basePath || path.startsWith(`${basePath}/`) || (basePath === '' && path === '')
      );
    },
    async handle(request) {
      let allowed: boolean;
      try {
        allowed = (await config.authorize(request.native)) === true;
      } catch (error) {
        config.onError(error);
        return text(500, 'The dashboard could not check this request');
      }
      if (!allowed)
        return text(
          401,
          'Unauthorized',
          config.challenge ? { 'www-authenticate': config.challenge } : {},
        );
      try {
        return await route(request);
      } catch (error) {
        config.onError(error);
        return text(500, 'The dashboard failed to answer this request');
      }
    },
  };
}
