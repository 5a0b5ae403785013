/**
 * @module The HTTP sender: one request per attempt through `fetch`, the effect key in a header on
 * every attempt, the answer's status sorted into sent, retry and refused for good. Redirects are
 * never followed (the key would reach a host the message did not name); the answer is read only
 * to name a refusal, up to a bound; an error never shows the request's headers, nor the URL past
 * its origin (a webhook URL's path or query may be its secret).
 */
import { headOf } from '../answer-head';
import { ConfigError } from '../errors';
import { HTTP_TOKEN } from '../http/constants';
import { numberOption } from '../inbox/run';
import { type OutboxSender, PermanentSendFailure, type SendInput } from './types';

/** The payload the HTTP sender takes: one request. */
export interface HttpMessage {
  /** Where it goes: an absolute `http:` or `https:` URL. */
  readonly url: string;
  /** Defaults to `POST`. */
  readonly method?: string;
  /** Sent as given, but for the key's header, which the sender sets. Never shown in an error. */
  readonly headers?: Readonly<Record<string, string>>;
  /** The body, as text. Not with `json`. */
  readonly body?: string;
  /** A value sent as its JSON, with `content-type: application/json` unless `headers` set one. Not with `body`. */
  readonly json?: unknown;
}

/** Options of {@link httpSender}. */
export interface HttpSenderOptions {
  /** The header the effect key goes in, on every attempt. Defaults to `Idempotency-Key`. */
  readonly keyHeader?: string;
  /** Most bytes of an answer read (only to name a refusal in its error). Defaults to 64 KiB. */
  readonly maxResponseBytes?: number;
  /** The `fetch` to send with. Defaults to the global `fetch`. */
  readonly fetch?: typeof fetch;
}

/** The default of {@link HttpSenderOptions.maxResponseBytes}: 64 KiB. */
const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024;
/** Characters of an answer an error shows. */
const ANSWER_SHOWN = 200;
/** Statuses a later attempt may get past: a timeout, a conflict with a request under way, too early, too many. */
const RETRYABLE_4XX: ReadonlySet<number> = new Set([408, 409, 425, 429]);

/** A request the sender was given, checked: what `fetch` gets, and how errors name it. */
interface PreparedRequest {
  readonly url: URL;
  readonly method: string;
  readonly headers: Headers;
  readonly body: string | undefined;
  /** The method and origin: never the path, the query or credentials (a webhook URL's path may be its secret). */
  readonly shown: string;
}

/** `payload` as a request, or a {@link PermanentSendFailure} naming what is wrong with it. */
function requestOf(payload: unknown, keyHeader: string, key: string): PreparedRequest {
  const refuse = (problem: string) => new PermanentSendFailure(`Invalid HTTP message: ${problem}`);
  if (typeof payload !== 'object' || payload === null) throw refuse('expected an object');
  const message = payload as Partial<HttpMessage>;
  let url: URL;
  try {
    url = new URL(String(message.url));
  } catch {
    throw refuse('url must be an absolute URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw refuse(`url must be http: or https:, got ${url.protocol}`);
  if (url.username !== '' || url.password !== '')
    throw refuse(
      'url must not hold credentials: add them at send time (a fetch of your own given to httpSender({ fetch }), or a sender of your own), never in the stored message',
    );
  const method = message.method ?? 'POST';
  if (typeof method !== 'string' || !HTTP_TOKEN.test(method))
    throw refuse(`method must be an HTTP method, got ${JSON.stringify(method)}`);
  if (message.body !== undefined && message.json !== undefined)
    throw refuse('body and json are exclusive: give one');
  if (message.body !== undefined && typeof message.body !== 'string')
    throw refuse('body must be a string (use json for a value)');
  const body = message.json !== undefined ? JSON.stringify(message.json) : message.body;
  if (body !== undefined && /^(GET|HEAD)$/i.test(method))
    throw refuse(`a ${method} request has no body`);
  let headers: Headers;
  try {
    headers = new Headers(message.headers);
  } catch {
    throw refuse('headers must be an object of header names to string values');
  }
  if (message.json !== undefined && !headers.has('content-type'))
    headers.set('content-type', 'application/json');
  headers.set(keyHeader, key);
  // Named by its origin only: a webhook URL's path or query may be its secret (Slack's, Discord's).
  return { url, method, headers, body, shown: `${method} ${url.origin}` };
}

/** Why `fetch` got no answer, without the URL's path and query should its text hold the URL. */
function failureText(error: unknown, url: URL): string {
  const cause = (error as { cause?: unknown } | null)?.cause ?? error;
  let text = String(cause).replaceAll(url.href, url.origin);
  for (const part of [url.search, url.pathname])
    if (part !== '' && part !== '/') text = text.replaceAll(part, '');
  return text;
}

/** Where a redirect pointed: its origin only. */
function locationOf(response: Response, base: URL): string {
  const location = response.headers.get('location');
  if (location === null) return 'no Location';
  try {
    return new URL(location, base).origin;
  } catch {
    return 'an invalid Location';
  }
}

/** Throws for an answer other than 2xx: a retry, or a refusal for good. */
async function judge(
  response: Response,
  request: PreparedRequest,
  maxBytes: number,
): Promise<void> {
  const { status } = response;
  if (status >= 200 && status < 300) {
    await response.body?.cancel().catch(() => undefined);
    return;
  }
  if ((status >= 300 && status < 400) || response.type === 'opaqueredirect') {
    await response.body?.cancel().catch(() => undefined);
    throw new PermanentSendFailure(
      `${request.shown} answered ${status}, a redirect to ${locationOf(response, request.url)}: not followed`,
    );
  }
  const answer = (await headOf(response.body, maxBytes)).replace(/\s+/g, ' ').trim();
  const text = `${request.shown} answered ${status}${answer ? `: ${answer.slice(0, ANSWER_SHOWN)}` : ''}`;
  if (status >= 400 && status < 500 && !RETRYABLE_4XX.has(status))
    throw new PermanentSendFailure(text);
  throw new Error(text);
}

/**
 * A sender of HTTP requests (its payload an {@link HttpMessage}): each attempt sends the request
 * with the effect key in `keyHeader`, under the dispatcher's signal, never following a redirect.
 * A 2xx answer is sent. 408, 409, 425, 429, 5xx, a network error or the deadline: tried again
 * after a backoff. Any other 4xx, a 3xx, or a message that is no request: `dead` at once
 * ({@link PermanentSendFailure}). An error names the method, the URL's origin, the status and
 * the start of the answer; never the headers, the path or the query.
 * @throws {ConfigError} naming an invalid option.
 * @example
 * const dispatcher = createOutboxDispatcher({ outbox, senders: { http: httpSender() } });
 * // in a handler:
 * await outbox.add(context, {
 *   name: 'notify-crm',
 *   sender: 'http',
 *   payload: { url: 'https://crm.example/api/paid', json: { orderId } } satisfies HttpMessage,
 * });
 */
export function httpSender(options: HttpSenderOptions = {}): OutboxSender<HttpMessage> {
  if (typeof options !== 'object' || options === null)
    throw new ConfigError('options', 'must be an object');
  const { keyHeader = 'Idempotency-Key', fetch: send = globalThis.fetch } = options;
  if (typeof keyHeader !== 'string' || !HTTP_TOKEN.test(keyHeader))
    throw new ConfigError('keyHeader', `must be a header name, got ${JSON.stringify(keyHeader)}`);
  const maxBytes = numberOption(
    'maxResponseBytes',
    options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    0,
    true,
  );
  if (typeof send !== 'function') throw new ConfigError('fetch', 'must be a function');
  return async ({ key, payload, signal }: SendInput<HttpMessage>) => {
    const request = requestOf(payload, keyHeader, key);
    let response: Response;
    try {
      response = await send(request.url, {
        method: request.method,
        headers: request.headers,
        body: request.body,
        redirect: 'manual',
        signal,
      });
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      throw new Error(`${request.shown}: no answer (${failureText(error, request.url)})`, {
        cause: error,
      });
    }
    await judge(response, request, maxBytes);
  };
}
