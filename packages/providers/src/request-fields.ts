/** @module Reading the parts of a neutral {@link HttpRequest} the presets need: headers, JSON and form fields, the path. */
import type { HttpRequest } from '@webhook-idempotency/core';

/** A JSON object as parsed from a body. */
export type JsonObject = Record<string, unknown>;

/** True for a plain object: not null, not an array, not bytes. */
export function isJsonObject(value: unknown): value is JsonObject {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    !(value instanceof Uint8Array)
  );
}

/**
 * One header value (names are lower-case in {@link HttpRequest}). A header repeated as an array
 * counts as garbled unless it holds exactly one value, so a signature header cannot be smuggled twice.
 */
export function header(request: HttpRequest, name: string): string | undefined {
  const value = request.headers[name];
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.length === 1 && typeof value[0] === 'string') return value[0];
  return undefined;
}

/** The text a body parser left as a string or bytes, else the raw body. */
export function bodyText(request: HttpRequest): string | undefined {
  const { body, rawBody } = request;
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array)
    return Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
  return rawBody?.toString('utf8');
}

/** The JSON object `text` holds; `undefined` for invalid JSON or any other JSON value. */
export function parseJsonObject(text: string): JsonObject | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  return isJsonObject(value) ? value : undefined;
}

const jsonCache = new WeakMap<HttpRequest, JsonObject | undefined>();

/**
 * The request's JSON object: the framework's parsed body when it is one, else the body text or
 * raw bytes parsed once (cached per request). `undefined` when there is no JSON object.
 */
export function jsonBody(request: HttpRequest): JsonObject | undefined {
  if (isJsonObject(request.body)) return request.body;
  if (jsonCache.has(request)) return jsonCache.get(request);
  const text = bodyText(request);
  const parsed = text === undefined ? undefined : parseJsonObject(text);
  jsonCache.set(request, parsed);
  return parsed;
}

/** Read access to form fields, each value exactly as it was decoded from the wire. */
export interface FormFields {
  get(name: string): string | undefined;
}

const formCache = new WeakMap<HttpRequest, FormFields>();

/**
 * The request's `application/x-www-form-urlencoded` fields. The raw bytes win when present (they
 * are what was signed); otherwise a parsed body's string values, or a body left as text.
 * A repeated field yields its first value; a non-string parsed value counts as missing.
 */
export function formFields(request: HttpRequest): FormFields {
  const cached = formCache.get(request);
  if (cached) return cached;
  let fields: FormFields;
  const { body, rawBody } = request;
  if (rawBody === undefined && isJsonObject(body)) {
    fields = { get: (name) => (typeof body[name] === 'string' ? body[name] : undefined) };
  } else {
    const params = new URLSearchParams(bodyText(request) ?? '');
    fields = { get: (name) => params.get(name) ?? undefined };
  }
  formCache.set(request, fields);
  return fields;
}

/** The last segment of the request path, without query or trailing slash: `/uzum/create?x=1` → `create`. */
export function lastPathSegment(url: string): string {
  let end = url.length;
  const query = url.search(/[?#]/);
  if (query !== -1) end = query;
  while (end > 0 && url[end - 1] === '/') end--;
  return url.slice(url.lastIndexOf('/', end - 1) + 1, end);
}

/** A JSON string or a safe integer as a key part; anything else (missing, empty, objects) is `undefined`. */
export function idPart(value: unknown): string | undefined {
  if (typeof value === 'string') return value === '' ? undefined : value;
  if (typeof value === 'number') return Number.isSafeInteger(value) ? String(value) : undefined;
  return undefined;
}

/** A reader of one top-level field of the JSON body as a key part: `bodyField('event_id')`. */
export function bodyField(field: string): (request: HttpRequest) => string | undefined {
  return (request) => idPart(jsonBody(request)?.[field]);
}

/** A reader of one header as a delivery id: an empty value counts as none. */
export function headerId(name: string): (request: HttpRequest) => string | undefined {
  return (request) => {
    const value = header(request, name);
    return value === '' ? undefined : value;
  };
}

/** Key parts joined by `separator`, `:` unless told (`portalId:subscriptionId:eventId`); `undefined` unless each is an {@link idPart}. */
export function joinedId(values: readonly unknown[], separator = ':'): string | undefined {
  const parts = values.map(idPart);
  return parts.every((part) => part !== undefined) ? parts.join(separator) : undefined;
}

/**
 * A reader of top-level fields of the JSON body joined by `separator` (`event:order_id`,
 * `object_type.event_type`): a key or an event name made of two fields; `undefined` without any.
 */
export function joinedFields(separator: string, ...fields: readonly string[]) {
  return (request: HttpRequest): string | undefined => {
    const body = jsonBody(request);
    return joinedId(
      fields.map((field) => body?.[field]),
      separator,
    );
  };
}
