/**
 * @module `createDashboard(options)`: the framework-free core every mount calls. A request record
 * in, a response record out: authorization first (nothing is read or done for a request it
 * refuses), then the route, the CSRF check of every action, and the page in its shell with the
 * security headers.
 */
import { ConfigError, isIdempotencyError } from '@webhook-idempotency/core';
import type { HttpResponseRecord } from '@webhook-idempotency/core/adapter';
import { layout, problem, type Reply, type View } from './layout';
import { type DashboardConfig, resolveDashboardOptions } from './options';
import { BadInput } from './query';
import { ACTIONS, type Action, ASSETS, PAGES, type Route } from './routes';
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

/** The options as the routes read them: they never look at the native request. */
type Config = DashboardConfig<unknown>;

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

/** A route's reply as the answer: a `303` to its redirect, or its page in the shell (no bytes for HEAD). */
function render(
  view: View,
  reply: Reply,
  setCookie: string | undefined,
  head: boolean,
): HttpResponseRecord {
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
}

/**
 * The page for what a route threw: a `400` naming the bad input, a `503` for a store that did not
 * answer (naming no driver error), a `500` for anything else; those two go to `onError`.
 */
function failure(error: unknown, onError: (error: unknown) => void): Reply {
  if (error instanceof BadInput) return problem(400, 'Bad request', error.message);
  if (isIdempotencyError(error) && error instanceof ConfigError)
    return problem(400, 'Bad request', `${error.option}: not accepted`);
  onError(error);
  const store = isIdempotencyError(error) && error.code === 'ERR_IDEMPOTENCY_STORE';
  return store
    ? problem(
        503,
        'The database did not answer',
        'Reading or writing the receipts failed. Nothing was changed that this page did not say; try again.',
      )
    : problem(500, 'Something went wrong', 'The dashboard failed to answer this request.');
}

/** True when `url`'s path is `basePath` or under it. */
function isUnder(basePath: string, url: string): boolean {
  const path = url.split('?', 1)[0]!;
  return path === basePath || path.startsWith(`${basePath}/`) || (basePath === '' && path === '');
}

/** One request as the routes see it: its path under the dashboard, its query, its method. */
interface Target {
  readonly path: string;
  readonly query: URLSearchParams;
  readonly method: string;
  readonly head: boolean;
}

function targetOf(request: DashboardRequest, basePath: string): Target {
  const [rawPath = '', search = ''] = request.url.split(/\?(.*)/s, 2);
  const method = request.method.toUpperCase();
  return {
    path: rawPath.slice(basePath.length) || '/',
    query: new URLSearchParams(search),
    method,
    head: method === 'HEAD',
  };
}

/**
 * The POST of an action, performed only for a form from this dashboard: same-site, with a valid
 * CSRF token of this session. Anything else is refused `403` and changes nothing.
 */
function perform(
  action: Action,
  request: DashboardRequest,
  view: View,
  query: URLSearchParams,
  config: Config,
  csrf: Csrf,
): Promise<Reply> {
  const form = formOf(request);
  if (
    crossSite(request.headers) ||
    !csrf.verify(request.headers, form.get(CSRF_FIELD) ?? undefined)
  )
    return Promise.resolve(
      problem(
        403,
        'Refused',
        'The form did not come from this dashboard, or it expired: nothing was changed. Reload the page and try again.',
      ),
    );
  return action.perform(view, query, form, config);
}

/** The reply of a page or an action: a read-only dashboard refuses every action, even its confirmation. */
async function replyOf(
  route: { page?: Route; action?: Action },
  request: DashboardRequest,
  view: View,
  target: Target,
  config: Config,
  csrf: Csrf,
): Promise<Reply> {
  const { page, action } = route;
  try {
    if (action && config.readOnly)
      return problem(403, 'Read-only', 'This dashboard is read-only: it changes nothing.');
    if (target.method === 'POST')
      return await perform(action!, request, view, target.query, config, csrf);
    return await (page ?? action!.confirm)(view, target.query, new URLSearchParams(), config);
  } catch (error) {
    return failure(error, config.onError);
  }
}

/**
 * Answers a request `authorize` allowed: the asset, page or action at its path (`404` off them,
 * `405` to a method they do not take), with the CSRF session cookie when it is new.
 */
async function route(
  request: DashboardRequest,
  config: Config,
  csrf: Csrf,
): Promise<HttpResponseRecord> {
  const target = targetOf(request, config.basePath);
  const { path, method, head } = target;
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
    base: config.basePath,
    nonce: newNonce(),
    token: csrf.token(session.id),
    readOnly: config.readOnly,
    hasInbox: config.inbox !== undefined,
    hasOutbox: config.outbox !== undefined,
    staleAfterMs: config.staleAfterMs,
  };
  const reply = await replyOf({ page, action }, request, view, target, config, csrf);
  return render(view, reply, session.setCookie, head);
}

/** `authorize`'s refusal: a `401` (with the challenge) when it said no, a `500` when it threw; none when it allowed. */
async function refusal(
  request: DashboardRequest,
  config: Config,
): Promise<HttpResponseRecord | undefined> {
  let allowed: boolean;
  try {
    allowed = (await config.authorize(request.native)) === true;
  } catch (error) {
    config.onError(error);
    return text(500, 'The dashboard could not check this request');
  }
  if (allowed) return undefined;
  return text(
    401,
    'Unauthorized',
    config.challenge ? { 'www-authenticate': config.challenge } : {},
  );
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
  const config = resolveDashboardOptions(options) as Config;
  const { basePath } = config;
  const csrf = new Csrf(config.secret, basePath || '/');
  return {
    basePath,
    matches: (url) => isUnder(basePath, url),
    async handle(request) {
      // Authorization first: nothing is read or done for a request it refuses.
      const refused = await refusal(request, config);
      if (refused) return refused;
      try {
        return await route(request, config, csrf);
      } catch (error) {
        config.onError(error);
        return text(500, 'The dashboard failed to answer this request');
      }
    },
  };
}
