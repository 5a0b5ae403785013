/**
 * @module The rows of the dashboard's hostile-input table about what an authorized request asks
 * for: keys, filters, page links, notices, paths, stored content. hostile-dashboard-cases.ts puts
 * them after the rows about who may ask (authorization, CSRF, methods).
 */
import type { RawRequest } from './hostile-client';
import type { DashboardCase } from './hostile-dashboard-types';

/** The path the table's dashboards are mounted at. */
export const DASHBOARD_BASE = '/admin/hooks';

const get = (headers: Record<string, string> = {}): RawRequest => ({
  method: 'GET',
  headers,
  body: Buffer.alloc(0),
});
const B = DASHBOARD_BASE;
const cursor = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** The rows. */
export const dashboardInputCases: readonly DashboardCase[] = [
  {
    name: 'a detail without its key',
    sent: 'GET /receipt',
    path: `${B}/receipt`,
    admin: true,
    request: get(),
    status: 400,
  },
  {
    name: 'an id past 160 characters',
    sent: 'GET /receipt?id=<161 chars>',
    path: `${B}/receipt?provider=stripe&id=${'i'.repeat(161)}`,
    admin: true,
    request: get(),
    status: 400,
  },
  {
    name: 'a query of 10 000 characters',
    sent: 'GET /receipts?provider=<10 000 chars>',
    path: `${B}/receipts?provider=${'p'.repeat(10_000)}`,
    admin: true,
    request: get(),
    status: 400,
  },
  {
    name: 'a page link that is not base64url',
    sent: 'GET /receipts?after=!!',
    path: `${B}/receipts?after=!!`,
    admin: true,
    request: get(),
    status: 400,
  },
  {
    name: 'a page link of the wrong shape',
    sent: 'GET /receipts?after=<base64url of {"a":1}>',
    path: `${B}/receipts?after=${cursor({ a: 1 })}`,
    admin: true,
    request: get(),
    status: 400,
  },
  {
    name: 'a page link with an impossible time',
    sent: 'GET /receipts?after=<base64url of [1e300,"p","i"]>',
    path: `${B}/receipts?after=${cursor([1e300, 'p', 'i'])}`,
    admin: true,
    request: get(),
    status: 400,
  },
  {
    name: 'an unknown status',
    sent: 'GET /receipts?status=stuck%00',
    path: `${B}/receipts?status=stuck%00`,
    admin: true,
    request: get(),
    status: 400,
  },
  {
    name: 'a date that does not exist',
    sent: 'GET /receipts?from=2026-02-31T10:00',
    path: `${B}/receipts?from=2026-02-31T10:00`,
    admin: true,
    request: get(),
    status: 400,
  },
  {
    name: 'a retention that is not a number',
    sent: 'GET /purge?retentionDays=1e3',
    path: `${B}/purge?retentionDays=1e3`,
    admin: true,
    request: get(),
    status: 400,
  },
  {
    name: 'markup in a search field',
    sent: 'GET /receipts?provider=<script>alert(1)</script>',
    path: `${B}/receipts?provider=${encodeURIComponent('<script>alert(1)</script>')}`,
    admin: true,
    request: get(),
    status: 200,
    mustNotContain: '<script>alert',
  },
  {
    name: 'markup in an id that does not exist',
    sent: 'GET /receipt?id="><svg onload=alert(1)>',
    path: `${B}/receipt?provider=stripe&id=${encodeURIComponent('"><svg onload=alert(1)>')}`,
    admin: true,
    request: get(),
    status: 404,
    mustNotContain: '<svg onload',
  },
  {
    name: 'control characters in a filter',
    sent: 'GET /receipts?provider=%1b[2J%07',
    path: `${B}/receipts?provider=%1b%5B2J%07`,
    admin: true,
    request: get(),
    status: 200,
  },
  {
    name: 'broken percent-encoding',
    sent: 'GET /receipt?id=%E0%A4%A',
    path: `${B}/receipt?provider=stripe&id=%E0%A4%A`,
    admin: true,
    request: get(),
    status: 404,
  },
  {
    name: 'prototype keys as a key',
    sent: 'GET /receipt?provider=__proto__&id=constructor',
    path: `${B}/receipt?provider=__proto__&id=constructor`,
    admin: true,
    request: get(),
    status: 404,
  },
  {
    name: 'a repeated filter',
    sent: 'GET /receipts?provider=a&provider=b',
    path: `${B}/receipts?provider=a&provider=b`,
    admin: true,
    request: get(),
    status: 200,
  },
  {
    name: 'a stored <script> body',
    sent: 'GET /receipt/answer of a body holding <script>',
    path: `${B}/receipt/answer?provider=stripe&id=evt_done`,
    admin: true,
    request: get(),
    status: 200,
    mustNotContain: '<script>window',
  },
  {
    name: 'a stored signature header',
    sent: 'GET /delivery of a delivery with Stripe-Signature',
    path: `${B}/delivery?provider=stripe&id=evt_dead`,
    admin: true,
    request: get(),
    status: 200,
    mustNotContain: 'abcdef0123456789',
  },
  {
    name: 'a path outside its routes',
    sent: 'GET /admin/hooks/..%2f..%2fetc%2fpasswd',
    path: `${B}/..%2f..%2fetc%2fpasswd`,
    admin: true,
    request: get(),
    status: 404,
  },
  {
    name: 'a path that only starts like it',
    sent: 'GET /admin/hooksX',
    path: `${B}X`,
    admin: true,
    request: get(),
    status: 404,
    by: 'the framework: not the dashboard’s',
  },
  {
    name: 'a garbage cookie',
    sent: 'Cookie: wi_dashboard_csrf=;;=;%%',
    path: `${B}/`,
    admin: true,
    request: get({ cookie: 'wi_dashboard_csrf=;;=;%%' }),
    status: 200,
  },
  {
    name: 'a NUL in a filter (no key can hold one)',
    sent: 'GET /receipts?provider=%00%1b[2J',
    path: `${B}/receipts?provider=%00%1b%5B2J`,
    admin: true,
    request: get(),
    status: 400,
  },
  {
    name: 'an id of 161 UTF-16 units, 81 characters (a key the store accepts)',
    sent: 'GET /receipt?id=k + 80 emoji',
    path: `${B}/receipt?provider=stripe&id=k${encodeURIComponent('🔑'.repeat(80))}`,
    admin: true,
    request: get(),
    status: 404,
  },
  {
    name: 'a prototype key as the notice to show',
    sent: 'GET /receipt?…&done=constructor',
    path: `${B}/receipt?provider=stripe&id=evt_stuck&done=constructor`,
    admin: true,
    request: get(),
    status: 200,
    mustNotContain: 'native code',
  },
];
