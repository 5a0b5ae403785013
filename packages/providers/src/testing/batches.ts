/**
 * @module Signers of the providers that send several events in one request (HubSpot, Adyen,
 * Meta; SendGrid's is with the key-signed ones), and Meta's verification GET.
 */
import { ConfigError } from '@webhook-idempotency/core';
import { basic, bytesOf, JSON_TYPE, mac, optionsOf, type Payload, placeOf, text } from './common';
import {
  type Challenge,
  challengeOf,
  type Delivery,
  type DeliveryOptions,
  delivered,
  millis,
  type SignerOptions,
} from './delivery';
import { secretOption, secretSigner } from './post';

/** Options of the {@link hubspot} signer. */
export interface HubSpotSignerOptions extends SignerOptions {
  /** The app's client secret. */
  clientSecret: string;
  /** The target URL exactly as in the app's webhook settings (and the preset): what HubSpot signs and calls. */
  targetUrl: string;
}

/** The escapes HubSpot decodes in the URI before signing (its request-validation page). */
const DECODED = /%(3A|2F|3F|40|21|24|27|28|29|2A|2C|3B)/gi;

/**
 * A fake HubSpot (signature v3): a JSON array of events, `X-HubSpot-Signature-v3` the base64
 * HMAC-SHA256 of method + URI + body + `X-HubSpot-Request-Timestamp` (milliseconds). A retry is
 * signed at its own time and raises each event's `attemptNumber`.
 */
export function hubspot(options: HubSpotSignerOptions) {
  const secret = secretOption('hubspot', options, 'clientSecret');
  const targetUrl = secretOption('hubspot', options, 'targetUrl');
  const { url, post } = secretSigner('hubspot', { ...options, url: targetUrl }, secret);
  const uri = url.replace(DECODED, (_match, hex: string) =>
    String.fromCharCode(Number.parseInt(hex, 16)),
  );
  const batch = (events: readonly object[], delivery?: DeliveryOptions): Delivery => {
    const attempted = ({ retries }: { retries: number }) =>
      events.map((event) => {
        const tries = (event as { attemptNumber?: unknown }).attemptNumber;
        return retries === 0
          ? event
          : { ...event, attemptNumber: (typeof tries === 'number' ? tries : 0) + retries };
      });
    return post(attempted, delivery, ({ body, at, key }) => {
      const stamp = String(Math.floor(at));
      return {
        'x-hubspot-request-timestamp': stamp,
        'x-hubspot-signature-version': 'v3',
        'x-hubspot-signature-v3': mac('sha256', key, ['POST', uri, body, stamp]).toString('base64'),
      };
    });
  };
  return { batch, event: batch };
}

/** Options of the {@link adyen} signer. */
export interface AdyenSignerOptions extends SignerOptions {
  /** The webhook's HMAC key, hex as the Customer Area shows it. */
  hmacKey: string;
  /** Basic credentials configured on the webhook, sent when given. */
  basicAuth?: { username: string; password: string };
}

/** One `NotificationRequestItem`, unsigned: the signer adds `additionalData.hmacSignature`. */
export type AdyenItem = Readonly<Record<string, unknown>>;

/** The fields Adyen signs of an item, in order; `amount.` ones are inside its `amount`. */
const ADYEN_SIGNED = [
  'pspReference',
  'originalReference',
  'merchantAccountCode',
  'merchantReference',
  'amount.value',
  'amount.currency',
  'eventCode',
  'success',
] as const;

/** Adyen's signed fields of an item, joined by `:` (a missing one, or one not a string or number, empty). */
function adyenSigned(item: AdyenItem): string {
  const amount = (item.amount ?? {}) as Readonly<Record<string, unknown>>;
  return ADYEN_SIGNED.map((path) => {
    const value = path.startsWith('amount.') ? amount[path.slice('amount.'.length)] : item[path];
    return typeof value === 'string' || typeof value === 'number' ? String(value) : '';
  }).join(':');
}

/**
 * A fake Adyen: `{ live, notificationItems }`, each item signed on its own in
 * `additionalData.hmacSignature` (base64 HMAC-SHA256, under the hex-decoded key, of pspReference,
 * originalReference, merchantAccountCode, merchantReference, amount value and currency,
 * eventCode and success joined by `:`). The forged copy signs with another key (and another password).
 */
export function adyen(options: AdyenSignerOptions) {
  const o = optionsOf('adyen', options);
  const hex = text('adyen', 'hmacKey', o.hmacKey);
  if (!/^(?:[0-9a-fA-F]{2})+$/.test(hex))
    throw new ConfigError('hmacKey', 'testing.adyen() needs the HMAC key as hex');
  const key = Buffer.from(hex, 'hex');
  const forger = Buffer.concat([Buffer.from('forged'), key]);
  const { url, clock } = placeOf('adyen', o);
  const credentials = (forged: boolean): Record<string, string> =>
    o.basicAuth === undefined
      ? {}
      : {
          authorization: basic(
            o.basicAuth.username,
            forged ? `forged-${o.basicAuth.password}` : o.basicAuth.password,
          ),
        };
  const batch = (
    items: readonly AdyenItem[],
    delivery?: DeliveryOptions & { live?: boolean },
  ): Delivery => {
    return delivered(clock, delivery, ({ forged }) => {
      const notificationItems = items.map((item) => {
        const hmacSignature = mac('sha256', forged ? forger : key, [adyenSigned(item)]).toString(
          'base64',
        );
        const additionalData = { ...(item.additionalData as object | undefined), hmacSignature };
        return { NotificationRequestItem: { ...item, additionalData } };
      });
      const body = bytesOf({ live: String(delivery?.live ?? false), notificationItems });
      return { url, body, headers: { ...JSON_TYPE, ...credentials(forged) } };
    });
  };
  return { batch, event: batch };
}

/** Options of the {@link meta} signer. */
export interface MetaSignerOptions extends SignerOptions {
  /** The app secret. */
  appSecret: string;
  /** The verify token typed when subscribing: needed for `challenge()`. */
  verifyToken?: string;
}

/** Meta's verification GET, and its copy with a wrong token (answered 403). */
export interface MetaChallenge extends Challenge {
  forged(): Challenge;
}

/**
 * A fake Meta (WhatsApp, Messenger, Instagram): `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of
 * the body>` under the app secret. `event(notification)` sends `{ object, entry }` as given;
 * `batch(changes)` one entry with several changes; `challenge()` the `hub.challenge` GET.
 */
export function meta(options: MetaSignerOptions) {
  const o = optionsOf('meta', options);
  const { url, clock, post } = secretSigner('meta', o, secretOption('meta', o, 'appSecret'));
  const event = (notification: Payload, delivery?: DeliveryOptions): Delivery =>
    post(notification, delivery, ({ body, key }) => ({
      'x-hub-signature-256': `sha256=${mac('sha256', key, [body]).toString('hex')}`,
      'x-hub-signature': `sha1=${mac('sha1', key, [body]).toString('hex')}`,
    }));
  const challengeUrl = (challenge: string, token: string) => {
    const called = new URL(url);
    called.searchParams.set('hub.mode', 'subscribe');
    called.searchParams.set('hub.challenge', challenge);
    called.searchParams.set('hub.verify_token', token);
    return called.toString();
  };
  return {
    event,
    batch(
      changes: readonly { readonly field: string; readonly value: unknown }[],
      delivery?: DeliveryOptions & { object?: string; entryId?: string },
    ): Delivery {
      const time = Math.floor((delivery?.at === undefined ? clock() : millis(delivery.at)) / 1000);
      const entry = [{ id: delivery?.entryId ?? '0', time, changes }];
      return event({ object: delivery?.object ?? 'whatsapp_business_account', entry }, delivery);
    },
    challenge(challenge = String(Math.floor(Math.random() * 1e9) + 1)): MetaChallenge {
      const token = text('meta', 'verifyToken', o.verifyToken);
      const at = clock();
      return Object.freeze({
        ...challengeOf(challengeUrl(challenge, token), at, challenge),
        forged: () => challengeOf(challengeUrl(challenge, `forged-${token}`), at, challenge),
      });
    },
  };
}
