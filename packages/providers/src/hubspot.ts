/**
 * @module HubSpot webhooks preset (signature v3): a batch of events per request, each keyed on its
 * account, subscription and event id; base64 HMAC-SHA256 of method + URI + raw body + timestamp.
 */
import type { HttpRequest } from '@webhook-idempotency/core';
import { ConfigError } from '@webhook-idempotency/core';
import { batchedPreset, jsonArrayBody } from './batched';
import type { TypedPreset } from './events';
import { canonicalFingerprint } from './fingerprint';
import { requireOptions } from './options';
import { header, idPart, isJsonObject, joinedId } from './request-fields';
import { firstMatch, timedKeyring, type TimedSecretOptions } from './secrets';
import { hmacMatches, isFresh } from './signature';

/**
 * Options of {@link hubspot}: `clientSecret`, the app's client secret (the app's Auth settings),
 * or several while you rotate it; or `resolveSecret`, a lookup per request.
 *
 * `toleranceSeconds`: accepted distance between `X-HubSpot-Request-Timestamp` and now, in seconds.
 * Defaults to 300 (HubSpot's 5 minutes).
 */
export type HubSpotOptions = TimedSecretOptions<'clientSecret'> & {
  /**
   * The URL HubSpot calls, exactly as set in the app's webhook settings (`https://…`, query
   * included), since HubSpot signs it: a proxy or a path prefix in front of the app does not change
   * it. Or a function of the request returning it, for an app that serves several. Required.
   */
  targetUrl: string | ((request: HttpRequest) => string);
};

/** One HubSpot event of a batch as this preset reads it: its key fields and `subscriptionType` (the event name). */
export interface HubSpotMinimalEvent {
  readonly portalId: number;
  readonly subscriptionId: number;
  readonly eventId: number;
  readonly subscriptionType: string;
}

/** HubSpot's subscription types: any name, each a {@link HubSpotMinimalEvent}. */
export type HubSpotMinimalEvents = Record<string, HubSpotMinimalEvent>;

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
  return joinedId([event.portalId, event.subscriptionId, event.eventId]);
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
export function hubspot<Events extends object = HubSpotMinimalEvents>(
  options: HubSpotOptions,
): TypedPreset<Events> {
  const { targetUrl } = requireOptions('hubspot', options);
  const { ring, now, tolerance } = timedKeyring(
    'hubspot',
    options,
    ['clientSecret', 'the app client secret'],
    300,
  );
  if (typeof targetUrl === 'string' && !/^https?:\/\/\S+$/.test(targetUrl))
    throw new ConfigError('targetUrl', 'hubspot() needs the full target URL, https://…');
  if (typeof targetUrl !== 'string' && typeof targetUrl !== 'function')
    throw new ConfigError(
      'targetUrl',
      'hubspot() needs the target URL or a function of the request',
    );
  const urlOf = typeof targetUrl === 'string' ? () => targetUrl : targetUrl;

  return batchedPreset<Events, string, unknown>(ring, {
    provider: 'hubspot',
    keyDescription: 'portalId, subscriptionId and eventId of each event',
    needsRawBody: true,
    retentionDays: 3,
    items: jsonArrayBody,
    item(event) {
      if (!isJsonObject(event)) return { id: undefined };
      const { attemptNumber, ...stable } = event;
      return { id: eventKey(event), fingerprint: canonicalFingerprint(stable) };
    },
    signedWith(r, secrets) {
      const given = header(r, 'x-hubspot-signature-v3');
      const stamp = header(r, 'x-hubspot-request-timestamp');
      const { rawBody } = r;
      if (rawBody === undefined || given === undefined || stamp === undefined) return undefined;
      if (!MILLISECONDS.test(stamp) || !isFresh(Number(stamp) / 1000, now(), tolerance))
        return undefined;
      const parts = [r.method, signedUri(urlOf(r)), rawBody, stamp];
      return firstMatch(secrets, (secret) => hmacMatches(secret, parts, [given], 'base64'));
    },
    itemType: (item) => (isJsonObject(item) ? idPart(item.subscriptionType) : undefined),
  });
}
