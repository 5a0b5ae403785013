/** @module Standard Webhooks / Svix preset: `webhook-id` as the key, `v1,<base64>` signatures with the `whsec_` secret. */
import type { HttpRequest, ProviderPreset } from '@webhook-idempotency/core';
import { ConfigError } from '@webhook-idempotency/core';
import {
  clockOption,
  optionalString,
  requireOptions,
  requireString,
  toleranceOption,
} from './options';
import { header } from './request-fields';
import { safeVerify } from './safe-verify';
import { timestampedHmac } from './timestamped-hmac';

/** Options of {@link standardWebhooks}. */
export interface StandardWebhooksOptions {
  /** The endpoint secret, `whsec_` followed by base64 (the prefix may be left out). Required. */
  secret: string;
  /** Accepted distance between `webhook-timestamp` and now. Defaults to 300 (the reference libraries' 5 minutes). */
  toleranceSeconds?: number;
  /**
   * Scopes the key: `endpoint:webhook-id`. Set it when one receipts table serves several senders
   * or endpoints whose ids could collide. Defaults to no scope (the bare `webhook-id`).
   */
  endpoint?: string;
  /** The receipts' provider name, e.g. the sending service. Defaults to `'standard-webhooks'`. */
  provider?: string;
  /** Milliseconds since the epoch, for tests. Defaults to `Date.now`. */
  clock?: () => number;
}

const PREFIX = 'whsec_';
const SCHEME = 'v1,';
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** `webhook-*` headers, or Svix's `svix-*` ones when no `webhook-id` was sent. */
function headerNames(request: HttpRequest): { id: string; timestamp: string; signature: string } {
  return request.headers['webhook-id'] !== undefined
    ? { id: 'webhook-id', timestamp: 'webhook-timestamp', signature: 'webhook-signature' }
    : { id: 'svix-id', timestamp: 'svix-timestamp', signature: 'svix-signature' };
}

function decodeSecret(secret: string): Buffer {
  const encoded = secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret;
  if (encoded.length === 0 || !BASE64.test(encoded)) {
    throw new ConfigError(
      'secret',
      'standardWebhooks() needs the endpoint secret as "whsec_" followed by base64',
    );
  }
  return Buffer.from(encoded, 'base64');
}

/**
 * Standard Webhooks preset, which also reads Svix's `svix-id` / `svix-timestamp` /
 * `svix-signature` headers (PROVIDERS.md §3.8).
 *
 * - **Key**: `webhook-id` (or `svix-id`), which the spec keeps the same across retries and means as
 *   the idempotency key; `endpoint:webhook-id` when `endpoint` is set.
 * - **Pass-through**: none.
 * - **Signature**: `webhook-signature` is a space-separated list of `v1,<base64>` entries (several
 *   during a secret rotation; `v1a` asymmetric entries are ignored). Each is compared in constant
 *   time with base64 HMAC-SHA256(base64-decoded secret, `${id}.${timestamp}.${rawBody}`).
 *   `webhook-timestamp` must be within `toleranceSeconds` either way; retries are re-signed with a
 *   fresh timestamp, so the tolerance does not limit redeliveries.
 * - **Retention**: 30 days. The spec's example schedule retries for about 75 hours (Svix about
 *   27.6 hours) and manual replays come on top; the spec's "5 minutes in redis" is far too short.
 *   Never answer a duplicate with 410: the spec reads it as "disable this endpoint".
 *
 * @example
 * import * as providers from '@webhook-idempotency/providers';
 * const preset = providers.standardWebhooks({ secret: process.env.WEBHOOK_SECRET!, provider: 'resend' });
 * preset.key(request); // 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W'
 * @throws {ConfigError} naming `secret`, `toleranceSeconds`, `endpoint`, `provider` or `clock` when invalid.
 * @see docs/providers.md#standard-webhooks--svix
 */
export function standardWebhooks(options: StandardWebhooksOptions): ProviderPreset {
  const { secret, toleranceSeconds, endpoint, provider, clock } = requireOptions(
    'standardWebhooks',
    options,
  );
  const key = decodeSecret(
    requireString(
      'standardWebhooks',
      'secret',
      secret,
      'the endpoint secret (whsec_…) as "secret"',
    ),
  );
  const tolerance = toleranceOption('standardWebhooks', toleranceSeconds, 300);
  const scope =
    endpoint === undefined
      ? undefined
      : requireString('standardWebhooks', 'endpoint', endpoint, '"endpoint"');
  const name = optionalString('standardWebhooks', 'provider', provider, 'standard-webhooks');
  const check = timestampedHmac({
    key,
    encoding: 'base64',
    toleranceSeconds: tolerance,
    now: clockOption('standardWebhooks', clock),
  });

  return {
    provider: name,
    keyDescription: 'webhook-id (or svix-id) header',
    needsRawBody: true,
    retentionDays: 30,
    key(request) {
      const id = header(request, headerNames(request).id);
      if (id === undefined || id === '') return undefined;
      return scope === undefined ? id : `${scope}:${id}`;
    },
    verify: safeVerify(function verifyStandardWebhooks(request) {
      const names = headerNames(request);
      const id = header(request, names.id);
      const list = header(request, names.signature);
      const { rawBody } = request;
      if (rawBody === undefined || !id || list === undefined) return false;
      return check({
        stamp: header(request, names.timestamp),
        signatures: list
          .split(' ')
          .filter((entry) => entry.startsWith(SCHEME))
          .map((entry) => entry.slice(SCHEME.length)),
        signed: (stamp) => [`${id}.${stamp}.`, rawBody],
      });
    }),
  };
}
