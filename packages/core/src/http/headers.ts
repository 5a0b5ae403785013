/** @module The header allow-list: which response headers a replay may carry. */
import { REPLAYED_HEADERS } from './constants';

/** Response headers as frameworks hold them (`res.getHeaders()`): numbers and `undefined` allowed. */
export type OutgoingHeaders = Readonly<
  Record<string, number | string | readonly string[] | undefined>
>;

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
    if (!(REPLAYED_HEADERS.has(lower) || (lower.startsWith('x-') && lower !== except))) continue;
    kept[lower] = typeof value === 'object' ? value.map(String) : String(value);
  }
  return kept;
}
