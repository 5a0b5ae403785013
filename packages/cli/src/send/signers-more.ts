/**
 * @module The presets `send` signs for that take more than one shared secret: key pairs
 * (`--key-file`, the private key whose public key the preset holds), URL-signed providers (the
 * given URL is the one signed), HTTP Basic credentials, batches (a one-item batch unless `--body`
 * holds several), providers with a handshake (a normal event is sent), and the generic `hmac`.
 */
import * as kit from '@webhook-idempotency/providers/testing';
import { basicPair, itemsOf, need, objectOf, privateKeyPem } from './credentials';
import type { SendRequest, Wired } from './wired';

const secret = (r: SendRequest, what: string) => need(r.preset, r.credentials, 'secret', what);
const keyPem = (r: SendRequest, what: string) => privateKeyPem(r.preset, r.credentials, what);

/** Twilio's form fields: every value of an object payload as text. */
function fieldsOf(payload: object): Record<string, string> {
  return Object.fromEntries(Object.entries(payload).map(([name, value]) => [name, String(value)]));
}

/** The presets signed with a key pair. */
const KEY_PAIRS: Readonly<Record<string, Wired>> = {
  discord: {
    needs: '--key-file <Ed25519 PEM>',
    sign: (r) => kit.discord({ url: r.url, privateKey: keyPem(r, 'Ed25519 PEM') }).event(r.payload),
  },
  sendgrid: {
    needs: '--key-file <P-256 PEM>',
    sign: (r) =>
      kit
        .sendgrid({ url: r.url, privateKey: keyPem(r, 'P-256 PEM') })
        .batch(
          Buffer.isBuffer(r.payload) ? r.payload.toString('utf8') : itemsOf(r.preset, r.payload),
        ),
  },
  wise: {
    needs: '--key-file <RSA PEM>',
    sign: (r) =>
      kit
        .wise({ url: r.url, privateKey: keyPem(r, 'RSA PEM') })
        .event(r.payload, { deliveryId: r.id }),
  },
  paypal: {
    needs: '--key-file --webhook-id',
    sign: (r) =>
      kit
        .paypal({
          url: r.url,
          privateKey: keyPem(r, 'RSA PEM of the certificate'),
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
          privateKey: secret(r, 'privateKey'),
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
  square: {
    needs: '--secret <signatureKey>',
    sign: (r) =>
      kit
        .square({ notificationUrl: r.url, signatureKey: secret(r, 'signatureKey') })
        .event(r.payload),
  },
  twilio: {
    needs: '--secret <authToken>',
    sign: (r) => {
      const signer = kit.twilio({ url: r.url, authToken: secret(r, 'authToken') });
      const token = { idempotencyToken: r.id };
      return Buffer.isBuffer(r.payload)
        ? signer.json(r.payload, token)
        : signer.event(fieldsOf(r.payload), token);
    },
  },
  hubspot: {
    needs: '--secret <clientSecret>',
    sign: (r) =>
      kit
        .hubspot({ targetUrl: r.url, clientSecret: secret(r, 'clientSecret') })
        .batch(itemsOf(r.preset, r.payload)),
  },
  mercadopago: {
    needs: '--secret <secret>',
    sign: (r) =>
      kit
        .mercadopago({ url: r.url, secret: secret(r, 'secret') })
        .event(objectOf(r.preset, r.payload), { requestId: r.id }),
  },
};

/** The presets with HTTP Basic credentials, batches, or a generic scheme. */
const OTHERS: Readonly<Record<string, Wired>> = {
  postmark: {
    needs: '--username --password',
    sign: (r) => {
      const [username, password] = basicPair(r.preset, r.credentials);
      return kit.postmark({ url: r.url, username, password }).event(r.payload);
    },
  },
  adyen: {
    needs: '--secret <hmacKey hex>',
    sign: (r) => {
      const { username, password } = r.credentials;
      const basicAuth =
        password === undefined ? {} : { basicAuth: { username: username ?? '', password } };
      return kit
        .adyen({ url: r.url, hmacKey: secret(r, 'hmacKey hex'), ...basicAuth })
        .batch(itemsOf(r.preset, r.payload) as kit.AdyenItem[]);
    },
  },
  meta: {
    needs: '--secret <appSecret>',
    sign: (r) => {
      const signer = kit.meta({ url: r.url, appSecret: secret(r, 'appSecret') });
      if (Buffer.isBuffer(r.payload)) return signer.event(r.payload);
      const changes = itemsOf(r.preset, r.payload) as { field: string; value: unknown }[];
      return signer.batch(changes);
    },
  },
  hmac: {
    needs: '--secret <secret>',
    sign: (r) => {
      const { signatureHeader = 'x-signature', idHeader = 'x-webhook-id' } = r.credentials;
      return kit
        .hmac({ url: r.url, secret: secret(r, 'secret'), signatureHeader, key: idHeader })
        .event(r.payload, { id: r.id });
    },
  },
};

/** The presets whose provider signs with a token or a key pair of its own kind. */
const TOKENS: Readonly<Record<string, Wired>> = {
  telnyx: {
    needs: '--key-file <Ed25519 PEM>',
    sign: (r) => kit.telnyx({ url: r.url, privateKey: keyPem(r, 'Ed25519 PEM') }).event(r.payload),
  },
  qstash: {
    needs: '--secret <signingKey>',
    sign: (r) =>
      kit
        .qstash({ url: r.url, signingKey: secret(r, 'signingKey') })
        .event(r.payload, { messageId: r.id }),
  },
  vonage: {
    needs: '--secret <signatureSecret>',
    sign: (r) =>
      kit.vonage({ url: r.url, signatureSecret: secret(r, 'signatureSecret') }).event(r.payload),
  },
  plaid: {
    needs: '--key-file <P-256 PEM>',
    sign: (r) => kit.plaid({ url: r.url, privateKey: keyPem(r, 'P-256 PEM') }).event(r.payload),
  },
};

/** The presets of this module, by preset factory name. */
export const MORE: Readonly<Record<string, Wired>> = {
  ...KEY_PAIRS,
  ...URL_SIGNED,
  ...OTHERS,
  ...TOKENS,
};
