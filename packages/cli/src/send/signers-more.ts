/**
 * @module The presets `send` signs for that take more than one shared secret: key pairs
 * (`--key-file`, the private key whose public key the preset holds), URL-signed providers (the
 * given URL is the one signed), HTTP Basic credentials, batches (a one-item batch unless `--body`
 * holds several), providers with a handshake (a normal event is sent), and the generic `hmac`.
 */
import * as kit from '@webhook-idempotency/providers/testing';
import { itemsOf, need, objectOf, privateKeyPem } from './credentials';
import {
  byBasic,
  byKeyFile,
  bySecret,
  bySecretWith,
  oneBatch,
  oneEvent,
  oneEventWith,
} from './signed-with';
import type { Wired } from './wired';

/** Twilio's form fields: every value of an object payload as text. */
function fieldsOf(payload: object): Record<string, string> {
  return Object.fromEntries(Object.entries(payload).map(([name, value]) => [name, String(value)]));
}

/** The presets signed with a key pair. */
const KEY_PAIRS: Readonly<Record<string, Wired>> = {
  discord: byKeyFile(kit.discord, 'Ed25519 PEM', oneEvent),
  sendgrid: byKeyFile(kit.sendgrid, 'P-256 PEM', (signer, r) =>
    signer.batch(
      Buffer.isBuffer(r.payload) ? r.payload.toString('utf8') : itemsOf(r.preset, r.payload),
    ),
  ),
  wise: byKeyFile(
    kit.wise,
    'RSA PEM',
    oneEventWith((r) => ({ deliveryId: r.id })),
  ),
  paypal: {
    needs: '--key-file --webhook-id',
    sign: (r) =>
      kit
        .paypal({
          url: r.url,
          privateKey: privateKeyPem(r.preset, r.credentials, 'RSA PEM of the certificate'),
          webhookId: need(r.preset, r.credentials, 'webhookId', 'webhookId'),
          ...(r.credentials.certUrl ? { certificateUrl: r.credentials.certUrl } : {}),
        })
        .event(r.payload, { transmissionId: r.id }),
  },
  braintree: {
    needs: '--public-key --secret',
    sign: (r) =>
      kit
        .braintree({
          url: r.url,
          publicKey: need(r.preset, r.credentials, 'publicKey', 'publicKey'),
          privateKey: need(r.preset, r.credentials, 'secret', 'privateKey'),
        })
        .event(
          Buffer.isBuffer(r.payload)
            ? r.payload.toString('utf8')
            : (r.payload as kit.BraintreeNotification),
        ),
  },
};

/** The presets whose provider signs the URL it calls: the URL given is the one signed. */
const URL_SIGNED: Readonly<Record<string, Wired>> = {
  square: bySecretWith(
    'signatureKey',
    (url, signatureKey) => kit.square({ notificationUrl: url, signatureKey }),
    oneEvent,
  ),
  twilio: bySecret(kit.twilio, 'authToken', (signer, r) => {
    const token = { idempotencyToken: r.id };
    return Buffer.isBuffer(r.payload)
      ? signer.json(r.payload, token)
      : signer.event(fieldsOf(r.payload), token);
  }),
  hubspot: bySecretWith(
    'clientSecret',
    (url, clientSecret) => kit.hubspot({ targetUrl: url, clientSecret }),
    oneBatch,
  ),
  mercadopago: bySecret(kit.mercadopago, 'secret', (signer, r) =>
    signer.event(objectOf(r.preset, r.payload), { requestId: r.id }),
  ),
};

/** The presets with HTTP Basic credentials, batches, or a generic scheme. */
const OTHERS: Readonly<Record<string, Wired>> = {
  postmark: byBasic(kit.postmark, oneEvent),
  adyen: bySecretWith(
    'hmacKey hex',
    (url, hmacKey, { credentials: { username, password } }) =>
      kit.adyen({
        url,
        hmacKey,
        ...(password === undefined ? {} : { basicAuth: { username: username ?? '', password } }),
      }),
    (signer, r) => signer.batch(itemsOf(r.preset, r.payload) as kit.AdyenItem[]),
  ),
  meta: bySecret(kit.meta, 'appSecret', (signer, r) =>
    Buffer.isBuffer(r.payload)
      ? signer.event(r.payload)
      : signer.batch(itemsOf(r.preset, r.payload) as { field: string; value: unknown }[]),
  ),
  hmac: bySecretWith(
    'secret',
    (url, secret, { credentials }) => {
      const { signatureHeader = 'x-signature', idHeader = 'x-webhook-id' } = credentials;
      return kit.hmac({ url, secret, signatureHeader, key: idHeader });
    },
    oneEventWith((r) => ({ id: r.id })),
  ),
};

/** The presets whose provider signs with a token or a key pair of its own kind. */
const TOKENS: Readonly<Record<string, Wired>> = {
  telnyx: byKeyFile(kit.telnyx, 'Ed25519 PEM', oneEvent),
  qstash: bySecret(
    kit.qstash,
    'signingKey',
    oneEventWith((r) => ({ messageId: r.id })),
  ),
  vonage: bySecret(kit.vonage, 'signatureSecret', oneEvent),
  plaid: byKeyFile(kit.plaid, 'P-256 PEM', oneEvent),
};

/** The presets of this module, by preset factory name. */
export const MORE: Readonly<Record<string, Wired>> = {
  ...KEY_PAIRS,
  ...URL_SIGNED,
  ...OTHERS,
  ...TOKENS,
};
