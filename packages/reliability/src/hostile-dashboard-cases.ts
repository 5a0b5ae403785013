/**
 * @module The dashboard's hostile-input table: requests an attacker, a broken client or a curious
 * user can send to its handlers, each with the answer every mount must give and the promise that
 * nothing stored changes. packages/reliability/test/hostile-dashboard.test.ts runs them.
 */
import type { RawRequest } from './hostile-client';
import type { DashboardCase, DashboardFamily } from './hostile-dashboard-types';
import { DASHBOARD_BASE, dashboardInputCases } from './hostile-dashboard-input-cases';

export { DASHBOARD_BASE };

export type { DashboardCase, DashboardFamily };

const form = 'application/x-www-form-urlencoded';
const get = (headers: Record<string, string> = {}): RawRequest => ({
  method: 'GET',
  headers,
  body: Buffer.alloc(0),
});
const post = (body: string | Buffer, headers: Record<string, string> = {}): RawRequest => ({
  method: 'POST',
  headers: { 'content-type': form, ...headers },
  body: typeof body === 'string' ? Buffer.from(body) : body,
});
const B = DASHBOARD_BASE;
const release = `${B}/receipt/release?provider=stripe&id=evt_stuck`;
const FASTIFY_415 = { fastify: { status: 415, by: 'Fastify: no parser for the type' } } as const;

/** The rows: who may ask (authorization, CSRF, methods), then what an authorized request asks for. */
export const hostileDashboardCases: readonly DashboardCase[] = [
  {
    name: 'no authorization: the overview',
    sent: 'GET / without the admin header',
    path: `${B}/`,
    admin: false,
    request: get(),
    status: 401,
  },
  {
    name: 'no authorization: a stored body',
    sent: 'GET /receipt/answer without the admin header',
    path: `${B}/receipt/answer?provider=stripe&id=evt_done`,
    admin: false,
    request: get(),
    status: 401,
    mustNotContain: 'pwned',
  },
  {
    name: 'no authorization: an action with a made-up token',
    sent: 'POST /receipt/release, csrf=… , no admin header',
    path: release,
    admin: false,
    request: post('csrf=AAAA'),
    status: 401,
  },
  {
    name: 'no authorization: an asset',
    sent: 'GET /assets/dashboard.js without the admin header',
    path: `${B}/assets/dashboard.js`,
    admin: false,
    request: get(),
    status: 401,
  },
  {
    name: 'action without a CSRF token',
    sent: 'POST /receipt/release, empty form',
    path: release,
    admin: true,
    request: post(''),
    status: 403,
  },
  {
    name: 'action with a forged token and no cookie',
    sent: 'POST csrf=<43 random characters>',
    path: release,
    admin: true,
    request: post(`csrf=${'x'.repeat(43)}`),
    status: 403,
  },
  {
    name: 'action with a planted cookie and a made-up token',
    sent: 'Cookie: wi_dashboard_csrf=<43 chars>, csrf=<other 43>',
    path: release,
    admin: true,
    request: post(`csrf=${'y'.repeat(43)}`, { cookie: `wi_dashboard_csrf=${'z'.repeat(43)}` }),
    status: 403,
  },
  {
    name: 'action with a token equal to the planted cookie (plain double submit)',
    sent: 'Cookie and csrf field the same value',
    path: release,
    admin: true,
    request: post(`csrf=${'z'.repeat(43)}`, { cookie: `wi_dashboard_csrf=${'z'.repeat(43)}` }),
    status: 403,
  },
  {
    name: 'action from another site',
    sent: 'POST with Origin: https://evil.example',
    path: release,
    admin: true,
    request: post('csrf=x', { origin: 'https://evil.example' }),
    status: 403,
  },
  {
    name: 'action from an opaque origin',
    sent: 'POST with Origin: null',
    path: release,
    admin: true,
    request: post('csrf=x', { origin: 'null' }),
    status: 403,
  },
  {
    name: 'action the browser marks cross-site',
    sent: 'POST with Sec-Fetch-Site: cross-site',
    path: release,
    admin: true,
    request: post('csrf=x', { 'sec-fetch-site': 'cross-site' }),
    status: 403,
  },
  {
    name: 'action as JSON',
    sent: 'POST application/json {"csrf":"x"}',
    path: release,
    admin: true,
    request: post('{"csrf":"x","force":"1"}', { 'content-type': 'application/json' }),
    status: 403,
  },
  {
    name: 'action as text/plain (a cross-site form can send it)',
    sent: 'POST text/plain csrf=x',
    path: release,
    admin: true,
    request: post('csrf=x', { 'content-type': 'text/plain' }),
    status: 403,
  },
  {
    name: 'action as multipart',
    sent: 'POST multipart/form-data with a csrf part',
    path: release,
    admin: true,
    request: post('--b\r\ncontent-disposition: form-data; name="csrf"\r\n\r\nx\r\n--b--\r\n', {
      'content-type': 'multipart/form-data; boundary=b',
    }),
    status: 403,
    on: FASTIFY_415,
  },
  {
    name: 'form past 64 KiB',
    sent: 'POST 70 000 bytes of form',
    path: `${B}/purge?retentionDays=0`,
    admin: true,
    request: post(`csrf=${'a'.repeat(70_000)}`),
    status: 413,
  },
  {
    name: 'purge with a negative retention, no token',
    sent: 'POST /purge?retentionDays=-1',
    path: `${B}/purge?retentionDays=-1`,
    admin: true,
    request: post(''),
    status: 403,
  },
  {
    name: 'POST to a page',
    sent: 'POST /receipts',
    path: `${B}/receipts`,
    admin: true,
    request: post('csrf=x'),
    status: 405,
  },
  {
    name: 'PUT',
    sent: 'PUT /receipts',
    path: `${B}/receipts`,
    admin: true,
    request: { method: 'PUT', headers: {}, body: Buffer.alloc(0) },
    status: 405,
  },
  {
    name: 'DELETE an action',
    sent: 'DELETE /receipt/release',
    path: release,
    admin: true,
    request: { method: 'DELETE', headers: {}, body: Buffer.alloc(0) },
    status: 405,
  },
  {
    name: 'HEAD of the overview',
    sent: 'HEAD /',
    path: `${B}/`,
    admin: true,
    request: { method: 'HEAD', headers: {}, body: Buffer.alloc(0) },
    status: 200,
  },
  ...dashboardInputCases,
];
