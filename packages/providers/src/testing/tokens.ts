/**
 * @module Signers of the providers that sign with a token or a private key of their own kind
 * (Telnyx, QStash, Vonage, Plaid): each signs from the provider's documented scheme with `node:crypto`, under a key of
 * the test's (the public half is what the preset is given) or a secret the test chooses.
 */
import {
  createHash,
  createHmac,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  sign,
} from 'node:crypto';
import { madeKey, objectOf, optionsOf, type Payload, seconds } from './common';
import { type Delivery, type DeliveryOptions, newId, type SignerOptions } from './delivery';
import { ed25519, type KeySignerOptions, privateKeyOf } from './asymmetric';
import { keyedSigner, secretOption, secretSigner } from './post';

/** A JSON value as a base64url JWS part. */
const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** A compact JWS, HS256 under `key`'s UTF-8 bytes, as RFC 7515 spells it. */
function hs256Token(claims: object, key: string): string {
  const input = `${part({ alg: 'HS256', typ: 'JWT' })}.${part(claims)}`;
  return `${input}.${createHmac('sha256', key).update(input).digest('base64url')}`;
}

/**
 * A fake Telnyx: `telnyx-signature-ed25519`, the base64 Ed25519 signature of `telnyx-timestamp`,
 * `|` and the body. Give the preset `signer.publicKey` (base64 of the 32 raw bytes, as Mission
 * Control shows it). A retry is signed anew at its own time, and counts itself in `meta.attempt`
 * where the payload has a `meta` object, as Telnyx's do.
 */
export function telnyx(options: KeySignerOptions = {}) {
  const key = privateKeyOf('telnyx', optionsOf('telnyx', options).privateKey, 'ed25519', ed25519);
  const { post } = keyedSigner<KeyObject>('telnyx', options, [key], () => [
    madeKey('telnyx-forger', ed25519),
  ]);
  return {
    /** The public key to give the preset: base64 of its 32 raw bytes. */
    publicKey: createPublicKey(key)
      .export({ format: 'der', type: 'spki' })
      .subarray(-32)
      .toString('base64'),
    event(payload: Payload, delivery?: DeliveryOptions): Delivery {
      const object = objectOf(payload);
      const meta = object?.meta;
      const attempt = ({ retries }: { retries: number }) =>
        typeof meta === 'object' && meta !== null && retries > 0
          ? { ...object, meta: { ...meta, attempt: retries + 1 } }
          : payload;
      return post(attempt, delivery, ({ body, at, key }) => {
        const stamp = String(seconds(at));
        const signed = Buffer.concat([Buffer.from(`${stamp}|`), body]);
        return {
          'telnyx-timestamp': stamp,
          'telnyx-signature-ed25519': sign(null, signed, key).toString('base64'),
        };
      });
    },
  };
}

/** Options of the {@link qstash} signer. */
export interface QStashSignerOptions extends SignerOptions {
  /** The signing key to sign with: the current one, or the next once Upstash rolls them. */
  signingKey: string;
}

/** Options of one QStash message. */
export interface QStashDeliveryOptions extends DeliveryOptions {
  /** `Upstash-Message-Id`, kept by a retry. Defaults to a new one. */
  messageId?: string;
}

/**
 * A fake QStash: `Upstash-Signature`, an HS256 JWT under the signing key whose `iss` is `Upstash`,
 * `sub` the signer's URL, `body` the base64url SHA-256 of the body, valid for 5 minutes from
 * its signing; `Upstash-Message-Id`, and `Upstash-Retried` counting the retries.
 */
export function qstash(options: QStashSignerOptions) {
  const key = secretOption('qstash', options, 'signingKey');
  const { url, post } = secretSigner('qstash', options, key);
  return {
    event(payload: Payload, delivery: QStashDeliveryOptions = {}): Delivery {
      const messageId = delivery.messageId ?? `msg_${newId()}`;
      return post(payload, delivery, ({ body, at, retries, key }) => {
        const iat = seconds(at);
        const digest = createHash('sha256').update(body).digest('base64url');
        const claims = {
          iss: 'Upstash',
          sub: url,
          exp: iat + 300,
          nbf: iat,
          iat,
          jti: `jwt_${newId()}`,
          body: digest,
        };
        return {
          'upstash-signature': hs256Token(claims, key),
          'upstash-message-id': messageId,
          'upstash-retried': String(retries),
        };
      });
    },
  };
}

/** Options of the {@link vonage} signer. */
export interface VonageSignerOptions extends SignerOptions {
  /** The signature secret to sign with. */
  signatureSecret: string;
  /** The `api_key` claim. Defaults to `abcd1234`. */
  apiKey?: string;
}

/**
 * A fake Vonage Messages API: `Authorization: Bearer <JWT>`, HS256 under the signature secret,
 * with `iat`, `jti`, `iss` `Vonage`, `api_key`, `application_id` and `payload_hash`, the hex
 * SHA-256 of the body. A retry is signed anew at its own time.
 */
export function vonage(options: VonageSignerOptions) {
  const key = secretOption('vonage', options, 'signatureSecret');
  const apiKey = options.apiKey ?? 'abcd1234';
  const { post } = secretSigner('vonage', options, key);
  return {
    event(payload: Payload, delivery?: DeliveryOptions): Delivery {
      return post(payload, delivery, ({ body, at, key }) => {
        const claims = {
          iat: seconds(at),
          jti: newId(),
          iss: 'Vonage',
          api_key: apiKey,
          application_id: 'aaaaaaaa-bbbb-cccc-dddd-0123456789ab',
          payload_hash: createHash('sha256').update(body).digest('hex'),
        };
        return { authorization: `Bearer ${hs256Token(claims, key)}` };
      });
    },
  };
}

const p256 = () => generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;

/** Options of the {@link plaid} signer. */
export interface PlaidSignerOptions extends KeySignerOptions {
  /** The `kid` the tokens name. Defaults to one the kit makes. */
  keyId?: string;
}

/**
 * A fake Plaid: `Plaid-Verification`, an ES256 JWT (r‖s) whose header names `kid`, with `iat` and
 * `request_body_sha256`, the hex SHA-256 of the body. Give the preset `signer.fetchKey`, which
 * answers with the public key as `/webhook_verification_key/get` would (a P-256 JWK), for its
 * own `kid` only.
 */
export function plaid(options: PlaidSignerOptions = {}) {
  const o = optionsOf('plaid', options);
  const key = privateKeyOf('plaid', o.privateKey, 'ec', p256);
  const keyId = o.keyId ?? 'kit-6c5516e1-92dc-479e-a8ff-5a51992e0001';
  const { post } = keyedSigner<KeyObject>('plaid', options, [key], () => [
    madeKey('plaid-forger', p256),
  ]);
  const { kty, crv, x, y } = createPublicKey(key).export({ format: 'jwk' });
  const jwk = { kty: String(kty), crv: String(crv), x: String(x), y: String(y), kid: keyId };
  const published = {
    ...jwk,
    alg: 'ES256',
    use: 'sig',
    created_at: 1_700_000_000,
    expired_at: null,
  };
  return {
    /** The verification key, as Plaid's `/webhook_verification_key/get` returns it. */
    key: published,
    /** A `fetchKey` for the preset: this signer's key for its `kid`, nothing for any other. */
    fetchKey: async (kid: string) => (kid === keyId ? published : undefined),
    event(payload: Payload, delivery?: DeliveryOptions): Delivery {
      return post(payload, delivery, ({ body, at, key }) => {
        const claims = {
          iat: seconds(at),
          request_body_sha256: createHash('sha256').update(body).digest('hex'),
        };
        const input = `${part({ alg: 'ES256', kid: keyId, typ: 'JWT' })}.${part(claims)}`;
        const signature = sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' });
        return { 'plaid-verification': `${input}.${signature.toString('base64url')}` };
      });
    },
  };
}
