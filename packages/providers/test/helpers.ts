/** Builds the neutral request records the presets read, the way an adapter would. */
import type { HttpRequest } from '@webhook-idempotency/core';
import type { HttpHeaders, HttpResponseRecord } from '@webhook-idempotency/core/adapter';

export interface RequestInit {
  method?: string;
  url?: string;
  headers?: HttpHeaders;
  /** The exact bytes; `undefined` simulates an adapter without raw-body access. */
  rawBody?: string | Buffer;
  /** What a body parser left, if one ran. */
  body?: unknown;
}

export function makeRequest(init: RequestInit = {}): HttpRequest {
  const { method = 'POST', url = '/webhook', headers = {}, rawBody, body } = init;
  return {
    method,
    url,
    headers,
    rawBody: typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody,
    body,
    native: {},
  };
}

/** A JSON request: raw bytes always, plus the parsed body when `parsed` is true (a JSON body parser ran). */
export function jsonRequest(
  payload: unknown,
  init: Omit<RequestInit, 'rawBody' | 'body'> & { parsed?: boolean; raw?: boolean } = {},
): HttpRequest {
  const { parsed = false, raw = true, ...rest } = init;
  const text = typeof payload === 'string' ? payload : JSON.stringify(payload);
  return makeRequest({
    ...rest,
    rawBody: raw ? text : undefined,
    body: parsed ? JSON.parse(text) : undefined,
  });
}

/** A form-urlencoded request built from fields (or an already encoded string). */
export function formRequest(
  fields: Record<string, string> | string,
  init: Omit<RequestInit, 'rawBody' | 'body'> & { parsed?: boolean; raw?: boolean } = {},
): HttpRequest {
  const { parsed = false, raw = true, ...rest } = init;
  const text = typeof fields === 'string' ? fields : new URLSearchParams(fields).toString();
  return makeRequest({
    ...rest,
    rawBody: raw ? text : undefined,
    body: parsed ? Object.fromEntries(new URLSearchParams(text)) : undefined,
  });
}

/** A stored response record with a JSON body. */
export function storedJson(
  text: string,
  headers: Record<string, string> = { 'content-type': 'application/json' },
): HttpResponseRecord {
  return { status: 200, headers, body: Buffer.from(text, 'utf8') };
}

/** The JSON a response record carries. */
export function bodyJson(record: HttpResponseRecord | undefined): unknown {
  if (!record) throw new Error('expected a response record');
  return JSON.parse(record.body.toString('utf8'));
}

/** `Authorization: Basic …` for a login and password. */
export function basic(login: string, password: string): string {
  return `Basic ${Buffer.from(`${login}:${password}`, 'utf8').toString('base64')}`;
}

/** A clock frozen at a Unix time in seconds. */
export function clockAt(seconds: number): () => number {
  return () => seconds * 1000;
}

/**
 * Options that swap `secret` for a lookup per request: the tenant is the `x-tenant` header and
 * only `tenant` has a secret, `secret`.
 */
export function oneTenant(tenant: string, secret: string) {
  return {
    secret: undefined,
    resolveSecret: {
      tenant: (request: HttpRequest) => request.headers['x-tenant'] as string | undefined,
      secrets: (name: string | undefined) => (name === tenant ? secret : undefined),
    },
  };
}
