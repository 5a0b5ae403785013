/**
 * `fetchDashboard(options)`: the dashboard as a `(Request) => Response` handler (Next.js route
 * handlers, Bun, Deno).
 * @module @webhook-idempotency/dashboard/fetch
 */
import {
  answerWhileDiscarding,
  readRequestBody,
  REQUEST_TOO_LARGE,
  toWebResponse,
} from '@webhook-idempotency/core/adapter';
import { createDashboard, type Dashboard } from '../dashboard';
import type { DashboardOptions } from '../types';
import { FORM_LIMIT_BYTES, formTooLarge } from './form-body';

/**
 * Answers a Web-standard `Request` with the dashboard; `undefined` when its path is not under
 * `basePath`. What the fetch and Hono mounts share.
 */
export async function answerWeb<Native>(
  dashboard: Dashboard<Native>,
  request: Request,
  native: Native,
): Promise<Response | undefined> {
  const url = new URL(request.url);
  const path = url.pathname + url.search;
  if (!dashboard.matches(path)) return undefined;
  const rawBody =
    request.method === 'POST' ? await readRequestBody(request, FORM_LIMIT_BYTES) : undefined;
  // The 413 goes out at once; its end waits while the rest of the form is read off, within core's
  // bound, so that a sender that writes its whole body before reading gets it.
  if (rawBody === REQUEST_TOO_LARGE)
    return answerWhileDiscarding(request, toWebResponse(formTooLarge));
  const headers: Record<string, string> = {};
  for (const [name, value] of request.headers) headers[name] = value;
  const record = await dashboard.handle({
    method: request.method,
    url: path,
    headers,
    rawBody,
    body: undefined,
    native,
    secure: url.protocol === 'https:',
  });
  return toWebResponse(record);
}

/**
 * The dashboard as a fetch handler: a request under `basePath` gets its page, any other a `404`.
 * In a Next.js App Router catch-all route (`app/admin/webhooks/[[...path]]/route.ts`), export it
 * as both `GET` and `POST`.
 * @throws {ConfigError} at construction, naming a missing or invalid option (`authorize` is required).
 * @example
 * const dashboard = fetchDashboard({ basePath: '/admin/webhooks', authorize: (request) => isAdmin(request), receipts });
 * export { dashboard as GET, dashboard as POST };
 * @see packages/dashboard/README.md
 */
export function fetchDashboard(
  options: DashboardOptions<Request>,
): (request: Request) => Promise<Response> {
  const dashboard = createDashboard(options);
  return async function dashboardHandler(request) {
    return (
      (await answerWeb(dashboard, request, request)) ?? new Response('Not found', { status: 404 })
    );
  };
}
