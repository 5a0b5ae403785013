/**
 * @module What keeps the dashboard's pages safe in a browser: the response headers (a strict
 * Content-Security-Policy with a nonce per page, no framing, no sniffing, no caching, no referrer to another site),
 * and the CSRF tokens of its forms.
 *
 * CSRF: a signed double-submit cookie. The first page a browser gets sets a random id in an
 * `HttpOnly`, `SameSite=Strict` cookie scoped to the dashboard's path; every form carries
 * HMAC-SHA256(secret, id). An action is performed only when the form's token is the HMAC of the
 * cookie it came with. Why this one: it needs no session store (any instance with the secret
 * checks it, the application's own session is not ours to read); unlike a plain double-submit
 * value, a cookie planted from a sibling subdomain is useless without a token only the server can
 * compute; and `SameSite=Strict` keeps the cookie off cross-site requests in the first place. A
 * POST whose `Origin` or `Sec-Fetch-Site` names another site is refused before the token is
 * looked at.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { HttpHeaders } from '@webhook-idempotency/core/adapter';

/** The CSRF cookie's name. */
export const CSRF_COOKIE = 'wi_dashboard_csrf';
/** The form field the token travels in. */
export const CSRF_FIELD = 'csrf';

const header = (headers: HttpHeaders, name: string): string | undefined => {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/** A fresh nonce for one page's stylesheet and script. */
export const newNonce = (): string => randomBytes(18).toString('base64');

/** The headers of every HTML page: the policy allows the page's own nonce and nothing else. */
export function pageHeaders(nonce: string): Record<string, string> {
  return {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': [
      "default-src 'none'",
      `script-src 'nonce-${nonce}'`,
      `style-src 'nonce-${nonce}'`,
      "img-src 'self'",
      "form-action 'self'",
      "frame-ancestors 'none'",
      "base-uri 'none'",
    ].join('; '),
    ...commonHeaders,
  };
}

/** Headers of every answer, pages and assets alike. */
export const commonHeaders: Readonly<Record<string, string>> = {
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  // Not no-referrer: under it a browser sends `Origin: null` with the forms' POSTs, which the
  // same-origin check must refuse. Links to other sites carry no referrer either way.
  'referrer-policy': 'same-origin',
  'cache-control': 'no-store',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

/** The value of cookie `name` in a `Cookie` header, if any. */
function cookieValue(headers: HttpHeaders, name: string): string | undefined {
  for (const part of (header(headers, 'cookie') ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

const ID = /^[A-Za-z0-9_-]{43}$/;

/** Issues and checks the tokens; one per dashboard, keyed by its secret. */
export class Csrf {
  constructor(
    private readonly secret: Buffer,
    private readonly path: string,
  ) {}

  /** The browser's CSRF id, or a new one with the `Set-Cookie` value that gives it. */
  session(headers: HttpHeaders, secure: boolean): { id: string; setCookie?: string } {
    const id = cookieValue(headers, CSRF_COOKIE);
    if (id !== undefined && ID.test(id)) return { id };
    const fresh = randomBytes(32).toString('base64url');
    const attributes = [`Path=${this.path || '/'}`, 'HttpOnly', 'SameSite=Strict'];
    if (secure) attributes.push('Secure');
    return { id: fresh, setCookie: `${CSRF_COOKIE}=${fresh}; ${attributes.join('; ')}` };
  }

  /** The token a form carries for `id`. */
  token(id: string): string {
    return createHmac('sha256', this.secret).update(`csrf:${id}`).digest('base64url');
  }

  /** True when `token` was issued for the cookie this request carries (compared in constant time). */
  verify(headers: HttpHeaders, token: string | undefined): boolean {
    const id = cookieValue(headers, CSRF_COOKIE);
    if (id === undefined || !ID.test(id) || token === undefined) return false;
    const want = Buffer.from(this.token(id));
    const got = Buffer.from(token);
    return got.length === want.length && timingSafeEqual(got, want);
  }
}

/**
 * True when a browser says this POST came from another site: an `Origin` whose host is not the
 * request's `Host`, or `Sec-Fetch-Site` other than `same-origin` (and `none`, typed by the user).
 */
export function crossSite(headers: HttpHeaders): boolean {
  const site = header(headers, 'sec-fetch-site');
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return true;
  const origin = header(headers, 'origin');
  if (origin === undefined) return false;
  try {
    // A proxy may rewrite Host and say the public one in X-Forwarded-Host; a cross-site form can
    // set neither, so either one matching is the same origin.
    const host = new URL(origin).host;
    return host !== header(headers, 'host') && host !== header(headers, 'x-forwarded-host');
  } catch {
    return true;
  }
}
