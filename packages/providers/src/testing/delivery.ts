/**
 * @module What every signer of the test kit returns: a {@link Delivery}, one request as the
 * provider sends it (method, URL, headers, exact body bytes), with its retry and its forged copy.
 */
import { randomUUID } from 'node:crypto';

/** A moment: a `Date`, or milliseconds since the epoch. */
export type Moment = Date | number;

/** Options every signer takes besides its credentials. */
export interface SignerOptions {
  /**
   * The URL the provider calls, absolute. Where the provider signs it (Square, HubSpot, Twilio),
   * the one the preset is given. Defaults to `https://example.com/webhooks/<provider>`.
   */
  url?: string;
  /** The signer's clock, milliseconds since the epoch (a preset's `clock` fits). Defaults to `Date.now`. */
  clock?: () => number;
}

/** Options of one delivery. */
export interface DeliveryOptions {
  /** When the provider signs it: an old one for a replay test. Defaults to the signer's clock. */
  at?: Moment;
  /** Headers to add or replace, lower-case names (applied after signing). */
  headers?: Readonly<Record<string, string>>;
}

/** Options of a retry. */
export interface RetryOptions {
  /** When the retry is signed. Defaults to the signer's clock. */
  at?: Moment;
}

/** One request as the provider sends it. */
export interface Delivery {
  readonly method: 'POST' | 'GET';
  /** The URL the provider calls, absolute. */
  readonly url: string;
  /** Its path and query, what a test server is sent: `/webhooks/stripe`. */
  readonly path: string;
  /** Lower-case names; `content-type` included. */
  readonly headers: Readonly<Record<string, string>>;
  /** The exact bytes (empty for a GET). */
  readonly body: Buffer;
  /** When it was signed, milliseconds since the epoch. */
  readonly at: number;
  /**
   * The same event delivered again, as the provider retries it: signed anew at `at` where the
   * provider signs a time, with the retry counters the provider advances; the same bytes otherwise.
   */
  retry(options?: RetryOptions): Delivery;
  /** The same request with its authentication forged (another secret, key or password): refused. */
  forged(): Delivery;
}

/** A handshake or challenge the preset answers itself, and the exact answer the provider expects. */
export interface Handshake extends Delivery {
  readonly answer: string;
  retry(options?: RetryOptions): Handshake;
  forged(): Handshake;
}

/** What one attempt's signing produces. */
export interface Draft {
  readonly method?: 'POST' | 'GET';
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string | Buffer;
}

/** One attempt: 0 for the first delivery, its time, and whether to sign with the forger's credentials. */
export interface Attempt {
  readonly retries: number;
  readonly at: number;
  readonly forged: boolean;
}

/** Signs one attempt of a delivery. */
export type Sign = (attempt: Attempt) => Draft;

/** Milliseconds since the epoch of a {@link Moment}. */
export function millis(moment: Moment): number {
  const value = moment instanceof Date ? moment.getTime() : moment;
  if (typeof value !== 'number' || !Number.isFinite(value))
    throw new TypeError('the test kit needs a time as a Date or milliseconds since the epoch');
  return value;
}

/** The attempt after `attempt`, signed at `options.at` or now. */
function next(maker: Maker, attempt: Attempt, options: RetryOptions): Attempt {
  const at = options.at === undefined ? maker.clock() : millis(options.at);
  return { retries: attempt.retries + 1, at, forged: attempt.forged };
}

/** The path and query of an absolute URL. */
function pathOf(url: string): string {
  const parsed = new URL(url);
  return parsed.pathname + parsed.search;
}

/** How a signer makes deliveries: its clock, and headers the caller adds. */
export interface Maker {
  readonly clock: () => number;
  readonly extra?: Readonly<Record<string, string>>;
}

/**
 * The {@link Delivery} of `sign`'s attempt; its retry is attempt `retries + 1` at the chosen time,
 * its forged copy the same attempt signed with the forger's credentials.
 */
export function deliver(sign: Sign, maker: Maker, attempt: Attempt): Delivery {
  const draft = sign(attempt);
  const { body } = draft;
  const bytes =
    body === undefined ? Buffer.alloc(0) : Buffer.isBuffer(body) ? body : Buffer.from(body);
  const retry = (options: RetryOptions = {}) => deliver(sign, maker, next(maker, attempt, options));
  return Object.freeze({
    method: draft.method ?? 'POST',
    url: draft.url,
    path: pathOf(draft.url),
    headers: Object.freeze({ ...draft.headers, ...maker.extra }),
    body: bytes,
    at: attempt.at,
    retry,
    forged: () => deliver(sign, maker, { ...attempt, forged: true }),
  });
}

/** A delivery with the answer the provider expects, kept on its retries and its forged copy. */
export function asHandshake(made: Delivery, answer: string): Handshake {
  return Object.freeze({
    ...made,
    answer,
    retry: (options?: RetryOptions) => asHandshake(made.retry(options), answer),
    forged: () => asHandshake(made.forged(), answer),
  });
}

/** The first attempt of a delivery made now or `options.at`, and the maker for its options. */
export function start(
  clock: () => number,
  options: DeliveryOptions = {},
): { maker: Maker; attempt: Attempt } {
  const at = options.at === undefined ? clock() : millis(options.at);
  return {
    maker: { clock, ...(options.headers ? { extra: lower(options.headers) } : {}) },
    attempt: { retries: 0, at, forged: false },
  };
}

/**
 * The first attempt of a delivery that `sign` makes, now or at `options.at`, with the headers
 * `options` adds: what every signer's event method returns ({@link start}, then {@link deliver}).
 */
export function delivered(
  clock: () => number,
  options: DeliveryOptions | undefined,
  sign: Sign,
): Delivery {
  const { maker, attempt } = start(clock, options);
  return deliver(sign, maker, attempt);
}

function lower(headers: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]),
  );
}

/** A fresh id: what a provider would mint for a delivery the caller did not name. */
export const newId = (): string => randomUUID();

/** A challenge sent as a GET, which the preset answers itself: no body, nothing signed in it. */
export interface Challenge {
  readonly method: 'GET';
  /** The URL with the challenge in its query. */
  readonly url: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
  readonly at: number;
  /** The exact answer the provider expects. */
  readonly answer: string;
}

/** A GET of `url` at `at`, expecting `answer`. */
export function challengeOf(url: string, at: number, answer: string): Challenge {
  return Object.freeze({
    method: 'GET',
    url,
    path: pathOf(url),
    headers: Object.freeze({}),
    body: Buffer.alloc(0),
    at,
    answer,
  });
}
