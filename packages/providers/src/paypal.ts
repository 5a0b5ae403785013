/**
 * @module PayPal preset: the event `id` as the key, `PAYPAL-TRANSMISSION-SIG` (RSA-SHA256 over
 * `transmissionId|transmissionTime|webhookId|crc32(rawBody)`) verified with the certificate at
 * `PAYPAL-CERT-URL`, fetched only from PayPal's hosts and cached.
 */
import { verify as verifySignature, X509Certificate } from 'node:crypto';
import type { HttpRequest } from '@webhook-idempotency/core';
import { ConfigError } from '@webhook-idempotency/core';
import { presentExternalId } from '@webhook-idempotency/core/adapter';
import { crc32 } from './crc32';
import type { TypedPreset } from './events';
import { keyedPreset } from './keyed-preset';
import { clockOption, requireOptions } from './options';
import { certificateSource } from './paypal-certificate-cache';
import {
  PAYPAL_CERTIFICATE_HOSTS,
  certificateUrl,
  fetchCertificateText,
  type FetchCertificate,
} from './paypal-certificates';
import { header, idPart, jsonBody } from './request-fields';
import { firstMatch, type SecretOptions, stringKeyring } from './secrets';
import { BASE64 } from './signature';

/**
 * Options of {@link paypal}: `webhookId`, your webhook's id (`WH-…` is the event; this is the
 * subscription's, shown in the app's settings), or several (one endpoint for several webhooks or
 * apps); or `resolveSecret`, a lookup per request (one PayPal app per customer).
 */
export type PayPalOptions = SecretOptions<'webhookId', string> & PayPalSettings;

/** The settings of {@link paypal} besides its webhook ids. */
export interface PayPalSettings {
  /**
   * Fetches the PEM text at a certificate URL (already checked against `certificateHosts`), within
   * the signal's deadline. Defaults to a GET with the platform's `fetch` (TLS verified, no
   * redirects, 2xx only). Yours must verify TLS too: the host check is only worth what the
   * connection proves.
   */
  fetchCertificate?: FetchCertificate;
  /** The hosts a `PAYPAL-CERT-URL` may name. Defaults to api(-m).paypal.com and api(-m).sandbox.paypal.com. */
  certificateHosts?: readonly string[];
  /**
   * CA certificates (PEM) the served certificate chain must end at. Defaults to none: the
   * certificate's origin is then what the pinned host over verified TLS proves, and the served
   * chain is still checked link by link. PayPal's former SDKs anchored at DigiCert's
   * "SHA2 Extended Validation Server CA".
   */
  trustedCertificates?: readonly string[];
  /** How long a certificate fetch may take, in milliseconds. Defaults to 5000. */
  certificateTimeoutMs?: number;
  /** Milliseconds since the epoch (certificate validity), for tests. Defaults to `Date.now`. */
  clock?: () => number;
}

/** A PayPal event as this preset reads it: `id` (the key) and `event_type` (the event name, `PAYMENT.CAPTURE.COMPLETED`). */
export interface PayPalMinimalEvent {
  readonly id: string;
  readonly event_type: string;
}

/** PayPal's event types: any name, each a {@link PayPalMinimalEvent}. */
export type PayPalMinimalEvents = Record<string, PayPalMinimalEvent>;

/** PayPal's `PAYPAL-AUTH-ALGO` for RSA with SHA-256, the only one this preset accepts. */
const AUTH_ALGORITHM = 'SHA256withRSA';
/** A transmission id or time: present, and no `|` that would move the signed fields. */
const signedField = (value: string | undefined) =>
  value !== undefined && value !== '' && !value.includes('|');

/**
 * What a delivery's headers say about its signature, or `undefined` when they cannot be one:
 * the certificate URL (already checked against `hosts`), the signature, the transmission id and
 * time that start the signed string, and the CRC-32 of the raw body that ends it.
 */
function transmissionOf(request: HttpRequest, hosts: ReadonlySet<string>) {
  const { rawBody } = request;
  const transmissionId = header(request, 'paypal-transmission-id');
  const transmissionTime = header(request, 'paypal-transmission-time');
  const signature = header(request, 'paypal-transmission-sig');
  const url = certificateUrl(header(request, 'paypal-cert-url'), hosts);
  if (
    rawBody === undefined ||
    url === undefined ||
    header(request, 'paypal-auth-algo') !== AUTH_ALGORITHM ||
    !signedField(transmissionId) ||
    !signedField(transmissionTime) ||
    signature === undefined ||
    !BASE64.test(signature)
  )
    return undefined;
  return {
    url,
    signature,
    signedPrefix: `${transmissionId}|${transmissionTime}`,
    crc: crc32(rawBody),
  };
}

function hostsOption(value: unknown): ReadonlySet<string> {
  if (value === undefined) return new Set(PAYPAL_CERTIFICATE_HOSTS);
  if (
    !Array.isArray(value) ||
    value.length === 0 ||
    value.some((h) => typeof h !== 'string' || h === '')
  )
    throw new ConfigError('certificateHosts', 'paypal() needs a non-empty array of host names');
  return new Set(value.map((host: string) => host.toLowerCase()));
}

function anchorsOption(value: unknown): X509Certificate[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.length === 0)
    throw new ConfigError(
      'trustedCertificates',
      'paypal() needs a non-empty array of PEM certificates',
    );
  return value.map((pem) => {
    try {
      const cert = new X509Certificate(pem as string);
      if (cert.ca) return cert;
    } catch {}
    throw new ConfigError(
      'trustedCertificates',
      'paypal() needs each entry to be a CA certificate in PEM',
    );
  });
}

function timeoutOption(value: unknown): number {
  if (value === undefined) return 5000;
  if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0)
    throw new ConfigError(
      'certificateTimeoutMs',
      'paypal() needs a positive whole number of milliseconds',
    );
  return value;
}

/**
 * PayPal REST webhook preset (payments, orders, subscriptions, disputes).
 *
 * - **Key**: the event's `id` (`WH-…`) from the body, the same on every retry. The transmission
 *   id is per transmission, not the key.
 * - **Signature**: `PAYPAL-TRANSMISSION-SIG` is the base64 RSA-SHA256 signature of
 *   `transmissionId|transmissionTime|webhookId|crc32` (the CRC-32 of the raw body in decimal),
 *   checked with the key of the certificate at `PAYPAL-CERT-URL`; `PAYPAL-AUTH-ALGO` must be
 *   `SHA256withRSA`. A certificate URL that is not `https://` on PayPal's hosts under
 *   `/v1/notifications/certs/` is refused before anything is fetched. The certificate must be
 *   current and name PayPal (`CN=messageverificationcerts…paypal.com`), its served chain must
 *   link up (and end at `trustedCertificates` when given). The URL is read before anything is
 *   verified, so fetches are bounded against unsigned requests: at most 10 start per minute and 2
 *   run at once (beyond that the delivery is refused unfetched), a URL whose fetch failed is not
 *   fetched again for a minute, and a certificate that verified a signature is kept (16 URLs)
 *   apart from what unsigned requests made us fetch (16 more). A fetch waits
 *   `certificateTimeoutMs` at most; one that fails or times out refuses the delivery (401, no
 *   receipt): PayPal retries any non-2xx answer.
 * - **Retention**: 30 days: PayPal retries up to 25 times over 3 days, and an event can be
 *   resent from the dashboard or the API after that.
 *
 * @example
 * const preset = providers.paypal({ webhookId: process.env.PAYPAL_WEBHOOK_ID! });
 * @throws {ConfigError} naming `webhookId`, `fetchCertificate`, `certificateHosts`,
 * `trustedCertificates`, `certificateTimeoutMs` or `clock` when invalid.
 * @see docs/providers.md#paypal
 */
export function paypal<Events extends object = PayPalMinimalEvents>(
  options: PayPalOptions,
): TypedPreset<Events> {
  const o = requireOptions('paypal', options);
  if (o.fetchCertificate !== undefined && typeof o.fetchCertificate !== 'function')
    throw new ConfigError(
      'fetchCertificate',
      'paypal() needs a function (url, signal) => Promise<string>',
    );
  const hosts = hostsOption(o.certificateHosts);
  const now = clockOption('paypal', o.clock);
  const ring = stringKeyring('paypal', o, 'webhookId', 'your webhook id', { now });
  const certificates = certificateSource({
    fetch: o.fetchCertificate ?? fetchCertificateText,
    timeoutMs: timeoutOption(o.certificateTimeoutMs),
    anchors: anchorsOption(o.trustedCertificates),
    now,
  });

  return keyedPreset<Events, string>(ring, {
    provider: 'paypal',
    keyDescription: 'event id in the body',
    needsRawBody: true,
    retentionDays: 30,
    id(request) {
      return presentExternalId(jsonBody(request)?.id);
    },
    async signedWith(r, webhookIds) {
      const transmission = transmissionOf(r, hosts);
      if (transmission === undefined) return undefined;
      const { url, signature } = transmission;
      const certificate = await certificates.at(url);
      if (certificate === undefined) return undefined;
      const bytes = Buffer.from(signature, 'base64');
      const found = firstMatch(webhookIds, (webhookId) =>
        verifySignature(
          'sha256',
          Buffer.from(`${transmission.signedPrefix}|${webhookId}|${transmission.crc}`, 'utf8'),
          certificate.key,
          bytes,
        ),
      );
      if (found !== undefined) certificates.proven(url, certificate);
      return found;
    },
    eventType: (request) => idPart(jsonBody(request)?.event_type),
  });
}
