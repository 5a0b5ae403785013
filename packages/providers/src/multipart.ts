/**
 * @module Reading form bodies beyond one field's value: one text field of a `multipart/form-data`
 * body (Dropbox Sign posts its event as the `json` part), and every field of a urlencoded one in
 * order (Robokassa signs its `Shp_` parameters, Mandrill every parameter), from the raw bytes, or
 * from what a form parser left.
 */
import type { HttpRequest } from '@webhook-idempotency/core';
import { bodyText, formFields, header, isJsonObject } from './request-fields';

const BOUNDARY = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i;
const DISPOSITION = /^content-disposition:\s*form-data\s*;(.*)$/im;
const NAME = /(?:^|;)\s*name="([^"]*)"/i;

/** The text of the part named `name` in a multipart body delimited by `boundary`, or `undefined`. */
function partOf(text: string, boundary: string, name: string): string | undefined {
  const parts = text.split(`--${boundary}`);
  for (const part of parts.slice(1)) {
    if (part.startsWith('--')) break;
    const end = part.indexOf('\r\n\r\n');
    if (end === -1) continue;
    const disposition = DISPOSITION.exec(part.slice(0, end))?.[1];
    if (disposition === undefined || NAME.exec(disposition)?.[1] !== name) continue;
    const value = part.slice(end + 4);
    return value.endsWith('\r\n') ? value.slice(0, -2) : value;
  }
  return undefined;
}

/**
 * The text field `name` of the request's form: the part of that name in a multipart body (the
 * raw bytes, or a body left as text), a string a form parser left under that name, or the field
 * of a urlencoded body. `undefined` when there is none.
 */
export function formTextField(request: HttpRequest, name: string): string | undefined {
  const type = header(request, 'content-type') ?? '';
  const { body } = request;
  if (isJsonObject(body) && typeof body[name] === 'string') return body[name];
  if (/^multipart\/form-data/i.test(type)) {
    const boundary = BOUNDARY.exec(type);
    const text = bodyText(request);
    if (!boundary || text === undefined) return undefined;
    return partOf(text, boundary[1] ?? boundary[2]!, name);
  }
  if (/^application\/x-www-form-urlencoded/i.test(type)) return formFields(request).get(name);
  return undefined;
}

/** Every field of a urlencoded body as sent, in order: from the raw body, else a parsed body's string values. */
export function formEntries(request: HttpRequest): Array<[string, string]> {
  const { body, rawBody } = request;
  if (rawBody === undefined && isJsonObject(body))
    return Object.entries(body).filter((entry): entry is [string, string] => {
      return typeof entry[1] === 'string';
    });
  return [...new URLSearchParams(bodyText(request) ?? '').entries()];
}

/** Entries sorted by name (code-unit order), those of one name kept in the order sent. */
export function byName(entries: Array<[string, string]>): Array<[string, string]> {
  return entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}
