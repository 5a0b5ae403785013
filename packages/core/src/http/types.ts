/** @module The neutral HTTP records the engine works on, and the provider preset contract. */
import type { PresetItem } from './batch-types';

/** Header map with lower-cased names, as Node's `IncomingHttpHeaders`. */
export type HttpHeaders = Readonly<Record<string, string | string[] | undefined>>;

/**
 * A request as the engine sees it: plain data, nothing framework-shaped. Adapters build it.
 * @typeParam Native the framework's own request object (`req`, `request` or `ctx`), handed
 *   untouched to the user's `key`, `provider` and `verify` callbacks.
 */
export interface HttpRequest<Native = unknown> {
  readonly method: string;
  /** Path and query as received. */
  readonly url: string;
  readonly headers: HttpHeaders;
  /**
   * The exact request bytes, when the adapter could get them (see docs/guides/raw-body.md).
   * Signatures and the default fingerprint need them.
   */
  readonly rawBody: Buffer | undefined;
  /** The framework's parsed body, if a body parser ran; `undefined` otherwise. */
  readonly body: unknown;
  /** The framework's request object. */
  readonly native: Native;
}

/** A response as stored and replayed: status, allow-listed headers, exact body bytes. */
export interface HttpResponseRecord {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[]>>;
  readonly body: Buffer;
}

/**
 * Provider knowledge as data: works with every adapter. Built by a factory per provider
 * (`stripe({ secret })`, `payme({ password })`, …) so secrets stay out of module state.
 */
export interface ProviderPreset {
  /** The receipts' `provider` column. */
  readonly provider: string;
  /** How a 400 answer names the id when the request lacks it (`'X-GitHub-Delivery header'`). Optional. */
  readonly keyDescription?: string;
  /** The provider's id for this delivery; `undefined` when the request carries none (→ 400). */
  key(request: HttpRequest): string | number | bigint | undefined;
  /**
   * For a provider that sends several events in one request (SendGrid, HubSpot, Adyen, Meta): the
   * request's items, each with its own id, asked after `verify` passed. The request is then keyed
   * by a digest of its item ids instead of `key`, and the handler runs each item under a receipt
   * of its own with `idempotency.batch.each` (docs/providers.md#batched-deliveries). `undefined`
   * when the request is not a batch: it goes on as a single delivery, keyed by `key`.
   */
  items?(request: HttpRequest): readonly PresetItem[] | undefined;
  /** True for requests that must never be deduplicated (read-only queries); they pass through unguarded. */
  passThrough?(request: HttpRequest): boolean;
  /**
   * The provider's own handshake (Discord's PING, Zoom's URL validation, Twitch's challenge, Meta's
   * `hub.challenge` GET), answered by the preset itself: the record to send, or `undefined` for a
   * delivery. Asked after `verify` passed and before any claim; the handler does not run and no
   * receipt is written. Also asked of a GET (or another method the guard leaves alone): a GET it
   * answers is verified first (`verify` sees the GET), every other passes through untouched.
   */
  handshake?(request: HttpRequest): HttpResponseRecord | undefined;
  /**
   * The provider's handshake sent as a read (a GET, such as Braintree's `bt_challenge`), which
   * carries no signed body for `verify` to check: asked for GET and HEAD before they pass through
   * unguarded. The preset authenticates it itself, or answers only what proves its secret without
   * lending it (no signing oracle). The record is sent as it is; `undefined` lets the read pass.
   */
  challenge?(request: HttpRequest): HttpResponseRecord | undefined;
  /** Authenticity check, on the raw bytes, before any claim. `false` → 401 (or `unauthorized`), no receipt. */
  verify?(request: HttpRequest): boolean | Promise<boolean>;
  /**
   * The fingerprint for this request; defaults to SHA-256 of the raw body. Override where a
   * legitimate retry changes bytes that do not matter (Payme's JSON-RPC `id`).
   */
  fingerprint?(request: HttpRequest): string | undefined;
  /** Reshapes a stored response for the current request (Payme: echo the current JSON-RPC `id`). */
  replay?(stored: HttpResponseRecord, request: HttpRequest): HttpResponseRecord;
  /** Protocol-shaped answer while another worker holds the claim; `undefined` keeps the default 409. */
  inProgress?(request: HttpRequest, retryAfterSeconds: number): HttpResponseRecord | undefined;
  /** Protocol-shaped answer for a failed `verify`; `undefined` keeps the default 401. */
  unauthorized?(request: HttpRequest): HttpResponseRecord | undefined;
  /** Whether `verify` or `fingerprint` need `rawBody`; the engine fails loudly when it is missing. */
  readonly needsRawBody: boolean;
  /** How long to keep receipts: the provider's retry window plus its manual redelivery window. */
  readonly retentionDays: number;
  /**
   * The status the inbox endpoint refuses with while the provider's backlog is over budget
   * (`inbox({ backpressure })`): 429 where the provider documents it as "slow down", else 503
   * (the default when absent). docs/providers.md#after-a-503-or-429 says what each provider does.
   */
  readonly backpressureStatus?: 429 | 503;
}
