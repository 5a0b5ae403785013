/**
 * @module HubSpot webhooks preset (signature v3): a batch of events per request, each keyed on its
 * account, subscription and event id; base64 HMAC-SHA256 of method + URI + raw body + timestamp.
 */
import type { HttpRequest, ProviderPreset } from '@webhook-idempotency/core';
import { ConfigError } from '@webhook-idempotency/core';
import { jsonArrayBody } from './batched';
import { canonicalFingerprint } from './fingerprint';
import { clockOption, requireOptions, requireString, toleranceOption } from './options';
import { header, idPart, isJsonObject } from './request-fields';
import { safeVerify } from './safe-verify';
import { hmacMatches, isFresh } from './signature';

/** Options of {@link hubspot}. */
export interface HubSpotOptions {
  /** The app's client secret (the app's Auth settings). Required. */
  clientSecret: string;
  /**
   * The URL HubSpot calls, exactly as set in the app's webhook settings (`https://…`, query
   * included), since HubSpot signs it: a proxy or a path prefix in front of the app does not change
   * it. Or a function of the request returning it, for an app that serves several. Required.
   */
  targetUrl: string | ((request: HttpRequest) => string);
  /** Accepted distance between `X-HubSpot-Request-Timestamp` and now, in seconds. Defaults to 300 (HubSpot's 5 minutes). */
  toleranceSeconds?: number;
  /** Milliseconds since the epoch, for tests. Defaults to `Date.now`. */
  clock?: () => number;
}

const MILLISECONDS = /^\d{1,15}$/;
/** The escapes HubSpot decodes in the URI before signing it (its request-validation page lists them). */
const DECODED = /%(3A|2F|3F|40|21|24|27|28|29|2A|2C|3B)/gi;

/** `url` with the escapes HubSpot decodes before signing turned back into their characters. */
function signedUri(url: string): string {
  return url.replace(DECODED, (_match, hex: string) =>
    String.fromCharCode(Number.parseInt(hex, 16)),
  );
}

/** The event's key: account, subscription and event id (HubSpot does not promise `eventId` alone is unique). */
function eventKey(event: unknown): string | undefined {
  if (!isJsonObject(event)) return undefined;
  const parts = [event.portalId, event.subscriptionId, event.eventId].map(idPart);
  return parts.every((part) => part !== undefined) ? parts.join(':') : undefined;
}

/**
 * HubSpot webhooks preset (the Webhooks API of an app: CRM object creation, deletion, property and
 * association changes, conversations), validated with signature v3.
 *
 * - **Batched**: the body is a JSON array of events (up to 100 per request); each is an item with
 *   its own receipt, keyed `portalId:subscriptionId:eventId`. Its fingerprint leaves out
 *   `attemptNumber`, which a retry changes. Run them with `idempotency.batch.each` and answer 2xx.
 * - **Signature**: `X-HubSpot-Signature-v3` is base64 HMAC-SHA256 under the client secret of the
 *   method, the URI (`targetUrl`, with the escapes HubSpot decodes turned back), the raw body and
 *   `X-HubSpot-Request-Timestamp` (milliseconds), which must be within `toleranceSeconds`.
 * - **Retention**: 3 days. HubSpot retries a failed batch up to 10 times over the next 24 hours.
 *
 * @example
 * const preset = providers.hubspot({
 *   clientSecret: process.env.HUBSPOT_CLIENT_SECRET!,
 *   targetUrl: 'https://app.example.com/webhooks/hubspot',
 * });
 * @throws {ConfigError} naming `clientSecret`, `targetUrl`, `toleranceSeconds` or `clock` when invalid.
 * @see docs/providers.md#hubspot
 */
export function hubspot(options: HubSpotOptions): ProviderPreset {
  const { clientSecret, targetUrl, toleranceSeconds, clock } = requireOptions('hubspot', options);
  const secret = requireString(
    'hubspot',
    'clientSecret',
    clientSecret,
    'the app client secret as "clientSecret"',
  );
  if (typeof targetUrl === 'string' && !/^https?:\/\/\S+$/.test(targetUrl))
    throw new ConfigError('targetUrl', 'hubspot() needs the full target URL, https://…');
  if (typeof targetUrl !== 'string' && typeof targetUrl !== 'function')
    throw new ConfigError(
      'targetUrl',
      'hubspot() needs the target URL or a function of the request',
    );
  const urlOf = typeof targetUrl === 'string' ? () => targetUrl : targetUrl;
  const tolerance = toleranceOption('hubspot', toleranceSeconds, 300);
  const now = clockOption('hubspot', clock);

  return {
    provider: 'hubspot',
    keyDescription: 'portalId, subscriptionId and eventId of each event',
    needsRawBody: true,
    retentionDays: 3,
    key: () => undefined,
    items(request) {
      return jsonArrayBody(request)?.map((event) => {
        if (!isJsonObject(event)) return { key: undefined, value: event };
        const { attemptNumber, ...stable } = event;
        return { key: eventKey(event), value: event, fingerprint: canonicalFingerprint(stable) };
      });
    },
    verify: safeVerify(function verifyHubSpot(request) {
      const given = header(request, 'x-hubspot-signature-v3');
      const stamp = header(request, 'x-hubspot-request-timestamp');
      const { rawBody } = request;
      if (rawBody === undefined || given === undefined || stamp === undefined) return false;
      if (!MILLISECONDS.test(stamp) || !isFresh(Number(stamp) / 1000, now(), tolerance))
        return false;
      const uri = signedUri(urlOf(request));
      return hmacMatches(secret, [request.method, uri, rawBody, stamp], [given], 'base64');
    }),
  };
}
