/** @module A small browser-like client for the HTTP suites: it keeps the CSRF cookie and reads a page's form token. */

/** An answer: status, headers, text. */
export interface Got {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
}

/** Requests against one origin, keeping the cookies it is given (as a browser would). */
export class Client {
  private cookie = '';
  constructor(
    private readonly origin: string,
    private readonly extraHeaders: Record<string, string> = {},
  ) {}

  async send(path: string, init: RequestInit = {}): Promise<Got> {
    const headers = new Headers(init.headers);
    for (const [name, value] of Object.entries(this.extraHeaders)) headers.set(name, value);
    if (this.cookie && !headers.has('cookie')) headers.set('cookie', this.cookie);
    const response = await fetch(this.origin + path, { ...init, headers, redirect: 'manual' });
    const set = response.headers.get('set-cookie');
    if (set) this.cookie = set.split(';')[0]!;
    return { status: response.status, headers: response.headers, text: await response.text() };
  }

  get = (path: string) => this.send(path);

  /** Posts `fields` as a form (a browser's `application/x-www-form-urlencoded`), same-origin. */
  post(
    path: string,
    fields: Record<string, string>,
    headers: Record<string, string> = {},
  ): Promise<Got> {
    return this.send(path, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: this.origin,
        ...headers,
      },
      body: new URLSearchParams(fields).toString(),
    });
  }
}

/** The CSRF token of the first form on a page. */
export function tokenOf(page: string): string {
  const match = /name="csrf" value="([^"]+)"/.exec(page);
  if (!match) throw new Error('no CSRF field on the page');
  return match[1]!;
}
