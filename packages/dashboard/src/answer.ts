/** @module A receipt's stored answer, read for display: an HTTP answer the adapters recorded, or a value a handler returned to the guard. */
import { decodeResponse, type HttpResponseRecord } from '@webhook-idempotency/core/adapter';

/** What a receipt's `response` column holds. */
export type StoredAnswer =
  | { readonly kind: 'http'; readonly record: HttpResponseRecord }
  | { readonly kind: 'value'; readonly text: string };

/** The stored answer: the HTTP record when it is one, else the text as stored (pretty-printed when it is JSON). */
export function decodeStoredAnswer(response: string): StoredAnswer {
  let value: unknown;
  try {
    value = JSON.parse(response);
  } catch {
    return { kind: 'value', text: response };
  }
  try {
    return { kind: 'http', record: decodeResponse(value) };
  } catch {
    return { kind: 'value', text: JSON.stringify(value, null, 2) };
  }
}
