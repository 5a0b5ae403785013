/**
 * @module Wise preset: `X-Delivery-Id` as the key, `X-Signature-SHA256` (RSA-SHA256 over the raw
 * body) verified with Wise's published public key.
 */
import { createPublicKey, verify as verifySignature, type KeyObject } from 'node:crypto';
import type { TypedPreset } from './events';
import { keyedPreset } from './keyed-preset';
import { objectFingerprint } from './fingerprint';
import { oneOf, publicKeyOption, requireOptions } from './options';
import { header, headerId, idPart, jsonBody } from './request-fields';
import { firstMatch, keyring, type OneOrMany, type SecretResolver } from './secrets';
import { BASE64 } from './signature';

/**
 * Wise's production webhook public key, as published on "How to create a webhook event handler"
 * (docs.wise.com/guides/developer/webhooks/event-handling, "Production Public Key").
 */
export const WISE_PRODUCTION_PUBLIC_KEY = `-----BEGIN PUBLIC KEY-----
MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAvO8vXV+JksBzZAY6GhSO
XdoTCfhXaaiZ+qAbtaDBiu2AGkGVpmEygFmWP4Li9m5+Ni85BhVvZOodM9epgW3F
bA5Q1SexvAF1PPjX4JpMstak/QhAgl1qMSqEevL8cmUeTgcMuVWCJmlge9h7B1CS
D4rtlimGZozG39rUBDg6Qt2K+P4wBfLblL0k4C4YUdLnpGYEDIth+i8XsRpFlogx
CAFyH9+knYsDbR43UJ9shtc42Ybd40Afihj8KnYKXzchyQ42aC8aZ/h5hyZ28yVy
Oj3Vos0VdBIs/gAyJ/4yyQFCXYte64I7ssrlbGRaco4nKF3HmaNhxwyKyJafz19e
HwIDAQAB
-----END PUBLIC KEY-----
`;

/**
 * Wise's sandbox webhook public key, from the same page ("Sandbox Public Key") and Wise's
 * `transferwise/digital-signatures-examples` (`verify-webhook-signature`), whose example vector
 * it verifies.
 */
export const WISE_SANDBOX_PUBLIC_KEY = `-----BEGIN PUBLIC KEY-----
MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAwpb91cEYuyJNQepZAVfP
ZIlPZfNUefH+n6w9SW3fykqKu938cR7WadQv87oF2VuT+fDt7kqeRziTmPSUhqPU
ys/V2Q1rlfJuXbE+Gga37t7zwd0egQ+KyOEHQOpcTwKmtZ81ieGHynAQzsn1We3j
wt760MsCPJ7GMT141ByQM+yW1Bx+4SG3IGjXWyqOWrcXsxAvIXkpUD/jK/L958Cg
nZEgz0BSEh0QxYLITnW1lLokSx/dTianWPFEhMC9BgijempgNXHNfcVirg1lPSyg
z7KqoKUN0oHqWLr2U1A+7kqrl6O2nx3CKs1bj1hToT1+p4kcMoHXA7kA+VBLUpEs
VwIDAQAB
-----END PUBLIC KEY-----
`;

/** Options of {@link wise}. */
export interface WiseOptions {
  /** Which of Wise's published keys signs: `'production'` (default) or `'sandbox'`. */
  environment?: 'production' | 'sandbox';
  /**
   * Another RSA public key (PEM, or a `KeyObject`), should Wise publish a new one before this
   * package knows it, or several while Wise moves from one to the next (any one verifies).
   * Replaces the key `environment` picks.
   */
  publicKey?: OneOrMany<string | KeyObject>;
  /** Looks the public keys up per request instead (docs/providers.md#secrets-rotation-and-one-per-customer). */
  resolveSecret?: SecretResolver<string | KeyObject>;
}

/** A Wise notification as this preset reads it: `event_type` (the event name, `transfers#state-change`). */
export interface WiseMinimalEvent {
  readonly event_type: string;
}

/** Wise's event types: any name, each a {@link WiseMinimalEvent}. */
export type WiseMinimalEvents = Record<string, WiseMinimalEvent>;

function keyOf(pem: unknown): KeyObject {
  return publicKeyOption(
    () =>
      typeof pem === 'object' && pem !== null && (pem as KeyObject).type === 'public'
        ? (pem as KeyObject)
        : createPublicKey(pem as string),
    (key) => key.asymmetricKeyType === 'rsa',
    [
      'wise() needs an RSA public key in PEM as "publicKey"',
      'wise() needs an RSA public key as "publicKey"',
    ],
  );
}

/**
 * Wise (Wise Platform) webhook preset: transfer state changes, balance credits and the other
 * events of a profile or application subscription.
 *
 * - **Key**: the `X-Delivery-Id` header, the UUID Wise assigns each outgoing notification (the
 *   body carries no event id). It is **not covered by the signature**, which signs the body
 *   alone. That a retry keeps the same delivery id is UNCONFIRMED in Wise's docs.
 * - **Fingerprint**: the body without `sent_at`, which a resend may restamp (UNCONFIRMED), so
 *   a retry is replayed rather than refused as another body under the same id.
 * - **Signature**: `X-Signature-SHA256` is the base64 RSA-SHA256 (PKCS#1 v1.5) signature of the
 *   raw body, checked with Wise's published production or sandbox key. No timestamp is signed.
 * - **Retention**: 21 days: Wise retries a delivery not answered 2xx within 5 seconds up to 25
 *   times over about two weeks.
 *
 * @example
 * const preset = providers.wise(); // production; { environment: 'sandbox' } for the sandbox
 * @throws {ConfigError} naming `environment` or `publicKey` when invalid.
 * @see docs/providers.md#wise
 */
export function wise<Events extends object = WiseMinimalEvents>(
  options: WiseOptions = {},
): TypedPreset<Events> {
  const o = requireOptions('wise', options);
  const environment = oneOf(
    'wise',
    'environment',
    o.environment,
    ['production', 'sandbox'],
    'production',
  );
  const published =
    environment === 'sandbox' ? WISE_SANDBOX_PUBLIC_KEY : WISE_PRODUCTION_PUBLIC_KEY;
  const ring = keyring<string | KeyObject, KeyObject>(
    { preset: 'wise', option: 'publicKey', what: 'an RSA public key', prepare: keyOf },
    o.resolveSecret === undefined ? (o.publicKey ?? published) : o.publicKey,
    o.resolveSecret,
  );

  return keyedPreset<Events, KeyObject>(ring, {
    provider: 'wise',
    keyDescription: 'X-Delivery-Id header',
    needsRawBody: true,
    retentionDays: 21,
    id: headerId('x-delivery-id'),
    fingerprint: objectFingerprint(jsonBody, 'sent_at'),
    signedWith(r, keys) {
      const { rawBody } = r;
      const signature = header(r, 'x-signature-sha256');
      if (rawBody === undefined || signature === undefined || !BASE64.test(signature))
        return undefined;
      const bytes = Buffer.from(signature, 'base64');
      return firstMatch(keys, (key) => verifySignature('sha256', rawBody, key, bytes));
    },
    eventType: (request) => idPart(jsonBody(request)?.event_type),
  });
}
