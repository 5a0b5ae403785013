/**
 * @module Auth0 log streams preset (a "Custom Webhook" stream): the `Authorization` header
 * compared with the token you configured (Auth0 signs nothing), and each log of the batch an item
 * keyed on its `log_id`, whichever content format the stream uses (JSON lines, array or object).
 */
import type { HttpRequest } from '@webhook-idempotency/core';
import { type BatchRow, batchedPreset, idOrContent, jsonArrayBody } from './batched';
import { secretMember } from './keyring-members';
import type { PresetFactory } from './events';
import { bodyText, idPart, isJsonObject, jsonBody, type JsonObject } from './request-fields';
import type { SecretOptions } from './secrets';
import { tokenHeaderMatch, tokenKeyring } from './token-header';

/**
 * Options of {@link auth0}: `authorization`, the stream's "Authorization Token" exactly as you
 * typed it (the whole header value Auth0 sends, `Bearer …` included if you wrote it), or several
 * while you change it; or `resolveSecret`, a lookup per request (one tenant per customer).
 */
export type Auth0Options = SecretOptions<'authorization', string>;

/** One log of an Auth0 log stream as this preset reads it: `log_id` (its key) and `data.type` (the event code: `s`, `f`, `sapi`…). */
export interface Auth0MinimalLog {
  readonly log_id?: string;
  readonly data: { readonly type: string; readonly log_id?: string };
}

/** Auth0's log event codes, each an {@link Auth0MinimalLog}. */
export type Auth0MinimalEvents = Record<string, Auth0MinimalLog>;

/** The logs of a JSON-lines body: one JSON object per non-empty line; `undefined` when one line is not. */
function jsonLines(text: string): JsonObject[] | undefined {
  const logs: JsonObject[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      return undefined;
    }
    if (!isJsonObject(value)) return undefined;
    logs.push(value);
  }
  return logs.length === 0 ? undefined : logs;
}

/** A log record: it carries a `log_id` at its top or in its `data`. */
const isLog = (value: unknown): value is JsonObject =>
  isJsonObject(value) && (value.log_id !== undefined || isJsonObject(value.data));

/**
 * The stream's logs, whichever content format it was set to: a JSON array; one JSON object (a
 * single log, or an object of logs by position); JSON lines.
 */
function auth0Logs(request: HttpRequest): readonly unknown[] | undefined {
  const array = jsonArrayBody(request);
  if (array !== undefined) return array;
  const object = jsonBody(request);
  if (object !== undefined) {
    if (isLog(object)) return [object];
    const values = Object.values(object);
    return values.length > 0 && values.every(isLog) ? values : undefined;
  }
  const text = bodyText(request);
  return text === undefined ? undefined : jsonLines(text);
}

/** A log's `log_id`, at its top or in its `data`. */
function logId(log: JsonObject): string | undefined {
  return idPart(log.log_id) ?? (isJsonObject(log.data) ? idPart(log.data.log_id) : undefined);
}

/**
 * Auth0 log streams preset: the tenant logs a "Custom Webhook" stream POSTs (logins, failures,
 * Management API calls…).
 *
 * - **Batched**: a request carries several logs; each is an item with its own receipt, keyed on its
 *   `log_id` (Auth0 delivers at least once, a log again with the same id), else on the SHA-256 of
 *   its content. Run them with `idempotency.batch.each`. The stream's content format may be JSON
 *   lines, a JSON array or a JSON object: the preset reads all three.
 * - **Authentication**: Auth0 signs nothing. The `Authorization` header must equal the stream's
 *   "Authorization Token", compared in constant time (both sides hashed first). The token covers
 *   neither the body nor a time: anyone who saw one request can send it again or send other logs
 *   with it; keep the endpoint on HTTPS.
 * - **Retention**: 14 days. Auth0 tries a log three times, starts over for a log that failed until
 *   the endpoint answers, and pauses the stream after 7 days of failures.
 *
 * @example
 * const preset = providers.auth0({ authorization: process.env.AUTH0_LOG_STREAM_TOKEN! });
 * @throws {ConfigError} naming `authorization` when invalid.
 * @see docs/providers.md#auth0-log-streams
 */
export const auth0: PresetFactory<Auth0Options, Auth0MinimalEvents> = /* @__PURE__ */ secretMember<
  Auth0Options,
  Buffer,
  BatchRow<Buffer, unknown>
>({
  provider: 'auth0',
  secret: [tokenKeyring, 'authorization', 'the Authorization Token'],
  family: batchedPreset,
  row: {
    keyDescription: 'log_id of each log',
    needsRawBody: false,
    retentionDays: 14,
    items: auth0Logs,
    item: /* @__PURE__ */ idOrContent(logId),
    signedWith: /* @__PURE__ */ tokenHeaderMatch('authorization'),
    itemType: (log) =>
      isJsonObject(log) && isJsonObject(log.data) ? idPart(log.data.type) : undefined,
  },
});
