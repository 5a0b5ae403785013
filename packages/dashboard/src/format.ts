/** @module How values read on a page: times (UTC), ages, durations, masked headers, bodies as text. */
import { isUtf8 } from 'node:buffer';
import { formatAge } from '@webhook-idempotency/core/operations';

/** `2026-12-05 10:04:31 UTC`. */
export const utc = (date: Date): string =>
  `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;

/** An age, its two largest units: `45s`, `12m`, `3h 5m`, `2d 4h`. */
export const age = formatAge;

/** A handler time: `85 ms`, `2.1 s`, then as an age. */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(Math.floor(ms / 100) / 10).toFixed(1)} s`;
  return age(ms);
}

/** Header names whose values are credentials or signatures: shown masked, never in full. */
const SECRET_HEADER =
  /signature|(^|-)sig(-|$)|hmac|secret|token|authorization|cookie|api[-_]?key|password|credential|x-hub-sig/i;

/** A header value as a page shows it: masked when its name says it is a signature or a credential. */
export function headerValue(name: string, value: string | readonly string[]): string {
  const text = typeof value === 'string' ? value : value.join(', ');
  return SECRET_HEADER.test(name) ? `•••• masked (${text.length} characters)` : text;
}

/** A body as text: UTF-8 (JSON pretty-printed), or base64 of bytes that are not UTF-8. */
export function bodyText(body: Buffer): { text: string; note: string } {
  if (!isUtf8(body))
    return {
      text: body.toString('base64'),
      note: `${body.length} bytes, not UTF-8: shown as base64`,
    };
  const text = body.toString('utf8');
  try {
    return { text: JSON.stringify(JSON.parse(text), null, 2), note: `${body.length} bytes, JSON` };
  } catch {
    return { text, note: `${body.length} bytes, text` };
  }
}

/** `1 receipt`, `3 receipts`. */
export const plural = (n: number, word: string, many = `${word}s`): string =>
  `${n} ${n === 1 ? word : many}`;
