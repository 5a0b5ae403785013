/**
 * @module Signers of the providers that sign with a private key (Discord, SendGrid, Wise,
 * PayPal). The provider's key is its own, so the signer signs with a key of the test's: one it
 * makes (its public key, `signer.publicKey`, is what the preset is given) or one it is handed.
 */
import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  sign,
} from 'node:crypto';
import { ConfigError } from '@webhook-idempotency/core';
import { madeKey, objectOf, optionsOf, type Payload, rsaForger, seconds, text } from './common';
import { asHandshake, newId } from './delivery';
import type { Delivery, DeliveryOptions, Handshake, SignerOptions } from './delivery';
import { type HeadersOf, keyedSigner } from './post';

/** Options of a signer that signs with a private key. */
export interface KeySignerOptions extends SignerOptions {
  /** The private key to sign with (a `KeyObject` or PEM). Defaults to one the kit makes, shared by every signer of this provider in the process. */
  privateKey?: KeyObject | string;
}

/** The private key option, read; `make` gives the kit's own when none is given. */
export function privateKeyOf(
  signer: string,
  value: unknown,
  type: string,
  make: () => KeyObject,
): KeyObject {
  if (value === undefined) return madeKey(`${signer}-own`, make);
  try {
    const key = typeof value === 'string' ? createPrivateKey(value) : (value as KeyObject);
    if (key.type === 'private' && key.asymmetricKeyType === type) return key;
  } catch {
    // Reported below.
  }
  throw new ConfigError(
    'privateKey',
    `testing.${signer}() needs an ${type} private key (a KeyObject or PEM)`,
  );
}

/**
 * The headers of a provider that signs `<unix seconds>` + body with its private key: the time in
 * `stampHeader`, the signature (`algorithm`, null where the key fixes it) in `signatureHeader`.
 */
const stampSigned =
  (
    algorithm: 'sha256' | null,
    encoding: 'hex' | 'base64',
    stampHeader: string,
    signatureHeader: string,
  ): HeadersOf<KeyObject> =>
  ({ body, at, key }) => {
    const stamp = String(seconds(at));
    const signature = sign(algorithm, Buffer.concat([Buffer.from(stamp), body]), key);
    return { [stampHeader]: stamp, [signatureHeader]: signature.toString(encoding) };
  };

export const ed25519 = () => generateKeyPairSync('ed25519').privateKey;
const p256 = () => generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;
const rsa = () => generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;

/** Options of one Discord interaction. */
export type DiscordDeliveryOptions = DeliveryOptions;

/**
 * A fake Discord: `X-Signature-Ed25519`, the hex Ed25519 signature of `X-Signature-Timestamp` +
 * body. Give the preset `signer.publicKey` (64 hex characters). `ping()` is the PING the preset
 * answers `{"type":1}`.
 */
export function discord(options: KeySignerOptions = {}) {
  const key = privateKeyOf('discord', optionsOf('discord', options).privateKey, 'ed25519', ed25519);
  const { post } = keyedSigner('discord', options, [key], () => [
    madeKey('discord-forger', ed25519),
  ]);
  const signed = stampSigned(null, 'hex', 'x-signature-timestamp', 'x-signature-ed25519');
  const interaction = (payload: Payload, delivery?: DiscordDeliveryOptions): Delivery =>
    post(payload, delivery, signed);
  return {
    /** The application public key to give the preset: 64 hex characters. */
    publicKey: createPublicKey(key)
      .export({ format: 'der', type: 'spki' })
      .subarray(-32)
      .toString('hex'),
    event: interaction,
    ping(id = String(Date.now()), delivery?: DiscordDeliveryOptions): Handshake {
      return asHandshake(interaction({ id, type: 1, version: 1 }, delivery), '{"type":1}');
    },
  };
}

/**
 * A fake SendGrid Event Webhook: a JSON array of events (ending with CRLF, as SendGrid sends it),
 * `X-Twilio-Email-Event-Webhook-Signature`, the base64 DER ECDSA (P-256, SHA-256) signature of
 * `X-Twilio-Email-Event-Webhook-Timestamp` + body. Give the preset `signer.publicKey` (base64).
 */
export function sendgrid(options: KeySignerOptions = {}) {
  const key = privateKeyOf('sendgrid', optionsOf('sendgrid', options).privateKey, 'ec', p256);
  const { post } = keyedSigner('sendgrid', options, [key], () => [
    madeKey('sendgrid-forger', p256),
  ]);
  const signed = stampSigned(
    'sha256',
    'base64',
    'x-twilio-email-event-webhook-timestamp',
    'x-twilio-email-event-webhook-signature',
  );
  const batch = (events: readonly object[] | string, delivery?: DeliveryOptions): Delivery => {
    const body = typeof events === 'string' ? events : `${JSON.stringify(events)}\r\n`;
    return post(body, delivery, signed);
  };
  return {
    /** The verification key to give the preset, as SendGrid shows it: base64 DER. */
    publicKey: createPublicKey(key).export({ format: 'der', type: 'spki' }).toString('base64'),
    batch,
    event: batch,
  };
}

/** Options of one Wise delivery. */
export interface WiseDeliveryOptions extends DeliveryOptions {
  /** `X-Delivery-Id`, kept by a retry. Defaults to a new one. */
  deliveryId?: string;
}

/**
 * A fake Wise: `X-Signature-SHA256`, the base64 RSA-SHA256 signature of the body, and
 * `X-Delivery-Id`; a retry carries its own `sent_at`. Give the preset `signer.publicKey` (PEM).
 */
export function wise(options: KeySignerOptions = {}) {
  const key = privateKeyOf('wise', optionsOf('wise', options).privateKey, 'rsa', rsa);
  const { post } = keyedSigner('wise', options, [key], () => [rsaForger()]);
  return {
    /** The public key to give the preset, PEM. */
    publicKey: String(createPublicKey(key).export({ format: 'pem', type: 'spki' })),
    event(payload: Payload, delivery: WiseDeliveryOptions = {}): Delivery {
      const object = objectOf(payload);
      const id = delivery.deliveryId ?? newId();
      const sentAt = ({ at, retries }: { at: number; retries: number }) =>
        object && retries > 0 && 'sent_at' in object
          ? { ...object, sent_at: new Date(at).toISOString() }
          : payload;
      return post(sentAt, delivery, ({ body, key }) => ({
        'x-delivery-id': id,
        'x-signature-sha256': sign('sha256', body, key).toString('base64'),
      }));
    },
  };
}

/** Options of the {@link paypal} signer. */
export interface PayPalSignerOptions extends SignerOptions {
  /** The webhook id PayPal signs with each delivery: the preset's `webhookId`. */
  webhookId: string;
  /**
   * The private key of the certificate the preset's `fetchCertificate` returns for
   * `certificateUrl` (a `KeyObject` or PEM). Node cannot issue certificates: make the pair with
   * openssl, the certificate's subject `CN=messageverificationcerts.sandbox.paypal.com`.
   */
  privateKey: KeyObject | string;
  /** `PAYPAL-CERT-URL`. Defaults to a sandbox certificate URL on a PayPal host. */
  certificateUrl?: string;
}

/** Options of one PayPal delivery. */
export interface PayPalDeliveryOptions extends DeliveryOptions {
  /** `PAYPAL-TRANSMISSION-ID`. Defaults to a new one. */
  transmissionId?: string;
}

/** CRC-32 (IEEE 802.3) of `bytes`, as PayPal signs the body. */
export function crc32(bytes: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? 0xedb88320 ^ (crc >>> 1) : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

/**
 * A fake PayPal: `PAYPAL-TRANSMISSION-SIG`, the base64 RSA-SHA256 signature of
 * `transmissionId|transmissionTime|webhookId|crc32(body)`, with `PAYPAL-CERT-URL` and
 * `PAYPAL-AUTH-ALGO: SHA256withRSA`. A retry is signed anew at its own transmission time.
 */
export function paypal(options: PayPalSignerOptions) {
  const o = optionsOf('paypal', options);
  const webhookId = text('paypal', 'webhookId', o.webhookId);
  const key = privateKeyOf('paypal', o.privateKey ?? null, 'rsa', rsa); // required: null is refused
  const certificateUrl =
    o.certificateUrl === undefined
      ? 'https://api.sandbox.paypal.com/v1/notifications/certs/CERT-360caa42-fca2a594-kit'
      : text('paypal', 'certificateUrl', o.certificateUrl);
  const { post } = keyedSigner('paypal', options, [key], () => [rsaForger()]);
  return {
    event(payload: Payload, delivery: PayPalDeliveryOptions = {}): Delivery {
      const id = delivery.transmissionId ?? newId();
      return post(payload, delivery, ({ body, at, key }) => {
        const time = new Date(at).toISOString().replace(/\.\d{3}Z$/, 'Z');
        const message = `${id}|${time}|${webhookId}|${crc32(body)}`;
        return {
          'paypal-transmission-id': id,
          'paypal-transmission-time': time,
          'paypal-transmission-sig': sign('sha256', Buffer.from(message), key).toString('base64'),
          'paypal-cert-url': certificateUrl,
          'paypal-auth-algo': 'SHA256withRSA',
        };
      });
    },
  };
}
