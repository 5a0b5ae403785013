/**
 * @module The engine's view of an HTTP event: method, path and query, lower-cased headers and the
 * body's exact bytes, whichever source shaped the event. What the user's callbacks get.
 */
import { Buffer } from 'node:buffer';
import type { HttpRequest } from '@webhook-idempotency/core';
import { requestTooLarge } from '@webhook-idempotency/core/adapter';
import type { Context } from 'aws-lambda';
import { type EventSource, type LambdaHttpEvent, type SourcedEvent, sourceOf } from './events';
import { type LambdaHttpResult, renderResult } from './result';

/** A header or query map as the events carry them: single values, or lists. */
type ValueMap = Readonly<Record<string, string | undefined>> | null | undefined;
type ListMap = Readonly<Record<string, readonly string[] | undefined>> | null | undefined;

/**
 * One HTTP event as every source shapes it: what the options' `key`, `provider`, `verify` (and
 * the inbox's `orderingKey`) get, and what {@link bodyOf} reads.
 * @typeParam E the event type your handler declares.
 */
export interface LambdaRequest<E extends LambdaHttpEvent = LambdaHttpEvent> {
  /** The event, untouched. */
  readonly event: E;
  /** The invocation's context (`undefined` when the caller passed none, as some tests do). */
  readonly context: Context | undefined;
  /** Which source shaped the event: `'v1'` (REST API), `'v2'` (HTTP API, Function URL) or `'alb'`. */
  readonly source: EventSource;
  /** Upper-case. */
  readonly method: string;
  /** Path and query string, the query percent-encoded (`/hooks?a=1&a=2`). */
  readonly url: string;
  /**
   * Headers with lower-cased names, as Node's `IncomingHttpHeaders`: a repeated header's values
   * joined by `, ` (cookies by `; `), from `multiValueHeaders` where the event has them.
   * @example
   * key: (request) => request.headers['x-github-delivery']
   */
  readonly headers: Readonly<Record<string, string | undefined>>;
  /** The body's exact bytes (base64-decoded where the event says `isBase64Encoded`); empty without one. */
  readonly rawBody: Buffer;
}

/** The headers, lower-cased and joined; lists win over single values, as the sources send both. */
function headerRecord(single: ValueMap, lists: ListMap): Record<string, string> {
  const record: Record<string, string> = {};
  const add = (name: string, value: string) => {
    const lower = name.toLowerCase();
    const before = record[lower];
    const joiner = lower === 'cookie' ? '; ' : ', ';
    record[lower] = before === undefined ? value : before + joiner + value;
  };
  if (lists) {
    for (const [name, values] of Object.entries(lists))
      for (const value of values ?? []) add(name, value);
  } else if (single) {
    for (const [name, value] of Object.entries(single)) if (value !== undefined) add(name, value);
  }
  return record;
}

/**
 * The query string of a map: API Gateway's REST API hands the values decoded (`encode`: encode
 * them again), an ALB as the client sent them.
 */
function queryOf(single: ValueMap, lists: ListMap, encode: boolean): string {
  const part = encode ? encodeURIComponent : (value: string) => value;
  const pairs: string[] = [];
  if (lists) {
    for (const [name, values] of Object.entries(lists))
      for (const value of values ?? []) pairs.push(`${part(name)}=${part(value)}`);
  } else if (single) {
    for (const [name, value] of Object.entries(single))
      if (value !== undefined) pairs.push(`${part(name)}=${part(value)}`);
  }
  return pairs.length === 0 ? '' : `?${pairs.join('&')}`;
}

/** The body's bytes: base64-decoded where the event says so. */
function bytesOf(body: string | null | undefined, base64: boolean | undefined): Buffer {
  if (body === null || body === undefined) return Buffer.alloc(0);
  return Buffer.from(body, base64 ? 'base64' : 'utf8');
}

/**
 * The exact bytes of an HTTP event's body, base64-decoded where the event says
 * `isBase64Encoded`: what a signature was computed over, and what your handler parses.
 * @example
 * const payload = JSON.parse(bodyOf(event).toString('utf8'));
 */
export function bodyOf(event: LambdaHttpEvent): Buffer {
  return bytesOf(event.body, event.isBase64Encoded);
}

/** The {@link LambdaRequest} of a sourced event. */
export function lambdaRequest<E extends LambdaHttpEvent>(
  sourced: SourcedEvent,
  context: Context | undefined,
): LambdaRequest<E> {
  const rawBody = bytesOf(sourced.event.body, sourced.event.isBase64Encoded);
  const base = { context, source: sourced.source, rawBody };
  if (sourced.source === 'v2') {
    const { event } = sourced;
    const headers = headerRecord(event.headers, undefined);
    if (event.cookies && event.cookies.length > 0) {
      const sent = headers.cookie;
      headers.cookie = [...(sent ? [sent] : []), ...event.cookies].join('; ');
    }
    const query = event.rawQueryString ? `?${event.rawQueryString}` : '';
    const method = event.requestContext.http.method.toUpperCase();
    return { ...base, event: event as E, method, url: event.rawPath + query, headers };
  }
  const { event } = sourced;
  const headers = headerRecord(event.headers, event.multiValueHeaders);
  const encode = sourced.source === 'v1';
  const query = queryOf(event.queryStringParameters, event.multiValueQueryStringParameters, encode);
  const method = event.httpMethod.toUpperCase();
  return { ...base, event: event as E, method, url: event.path + query, headers };
}

/** The engine's record of a {@link LambdaRequest}: nothing parsed, the raw bytes kept. */
export function httpRequestOf<E extends LambdaHttpEvent>(
  request: LambdaRequest<E>,
): HttpRequest<LambdaRequest<E>> {
  const { method, url, headers, rawBody } = request;
  return { method, url, headers, rawBody, body: undefined, native: request };
}

/** An event as both endpoints read it: its source and the engine's request, or the `413` result to answer. */
export type ReadEvent<E extends LambdaHttpEvent> =
  | { readonly sourced: SourcedEvent; readonly request: HttpRequest<LambdaRequest<E>> }
  | { readonly sourced: SourcedEvent; readonly tooLarge: LambdaHttpResult };

/**
 * Reads an event (refusing one of another source with `UnsupportedEventError`); a body over
 * `maxRequestBytes` gets the `413` result of its source instead of a request.
 */
export function readEvent<E extends LambdaHttpEvent>(
  event: E,
  context: Context,
  maxRequestBytes: number,
): ReadEvent<E> {
  const sourced = sourceOf(event);
  const request = lambdaRequest<E>(sourced, context);
  if (request.rawBody.length > maxRequestBytes)
    return { sourced, tooLarge: renderResult(requestTooLarge(maxRequestBytes), sourced) };
  return { sourced, request: httpRequestOf(request) };
}
