/** @module The header allow-list: which response headers a replay may carry. */
import { REPLAYED_HEADERS } from './constants';

/** Response headers as frameworks hold them (`res.getHeaders()`): numbers and `undefined` allowed. */
export type OutgoingHeaders = Readonly<
  Record<string, number | string | readonly string[] | undefined>
>;

/** Whether a lower-cased header `name` is stored and replayed: allow-listed, or `x-*` but not `except`. */
function replayable(name: string, except: string): boolean {
  return REPLAYED_HEADERS.has(name) || (name.startsWith('x-') && name !== except);
}

/**
 * The headers of `headers` that may be stored and replayed: content and caching headers
 * (`content-type`, `content-language`, `content-encoding`, `content-disposition`, `location`,
 * `etag`, `last-modified`, `cache-control`, `expires`, `link`, `vary`) and every `x-*` header
 * except `except` (the replay marker). Names come out lower-cased, numbers as
 * strings, multi-value headers as arrays, in their order.
 */
export function replayableHeaders(
  headers: OutgoingHeaders,
  except: string,
): Record<string, string | string[]> {
  const kept: Record<string, string | string[]> = {};
  for (const name of Object.keys(headers)) {
    const value = headers[name];
    if (value === undefined) continue;
    const lower = name.toLowerCase();
    if (!replayable(lower, except)) continue;
    kept[lower] = typeof value === 'object' ? value.map(String) : String(value);
  }
  return kept;
}

/**
 * {@link replayableHeaders} written straight as the JSON text of that object (the same members in
 * the same order), for a receipt whose stored answer is JSON text: no object is built for them.
 */
export function replayableHeadersJson(headers: OutgoingHeaders, except: string): string {
  let json = '{';
  for (const name of Object.keys(headers)) {
    const value = headers[name];
    if (value === undefined) continue;
    const lower = name.toLowerCase();
    if (!replayable(lower, except)) continue;
    if (json.length > 1) json += ',';
    json += `${JSON.stringify(lower)}:${JSON.stringify(typeof value === 'object' ? value.map(String) : String(value))}`;
  }
  return `${json}}`;
}
