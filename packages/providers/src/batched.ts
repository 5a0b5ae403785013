/** @module What the batched presets (SendGrid, HubSpot, Adyen, Meta) share: the JSON array body, content keys. */
import type { HttpRequest } from '@webhook-idempotency/core';
import { canonicalFingerprint } from './fingerprint';
import { bodyText } from './request-fields';

const arrayCache = new WeakMap<HttpRequest, readonly unknown[] | undefined>();

/**
 * The request's JSON array: the framework's parsed body when it is one, else the raw bytes parsed
 * once (cached per request). `undefined` when the body is not a JSON array.
 */
export function jsonArrayBody(request: HttpRequest): readonly unknown[] | undefined {
  if (Array.isArray(request.body)) return request.body;
  if (arrayCache.has(request)) return arrayCache.get(request);
  const text = bodyText(request);
  let parsed: unknown;
  try {
    parsed = text === undefined ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const array = Array.isArray(parsed) ? parsed : undefined;
  arrayCache.set(request, array);
  return array;
}

/**
 * The key of an event that carries no id of its own: `sha256:` and the SHA-256 of its canonical
 * JSON. A retry re-sends the same event, so it gets the same key; two events that differ in
 * anything get two keys.
 */
export function contentKey(value: unknown): string {
  return `sha256:${canonicalFingerprint(value)}`;
}
