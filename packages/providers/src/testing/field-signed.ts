/**
 * @module Signers of the providers that sign with a plain hash or over chosen fields rather than an
 * HMAC of the body: Cloudinary's SHA-1/SHA-256 of body + timestamp + API secret.
 */
import { createHash } from 'node:crypto';
import { type Payload, seconds } from './common';
import type { Delivery, DeliveryOptions, SignerOptions } from './delivery';
import { secretOption, secretSigner } from './post';

/** Options of the {@link cloudinary} signer. */
export interface CloudinarySignerOptions extends SignerOptions {
  apiSecret: string;
  /** The digest to sign with, as the account's setting says. Defaults to `'sha1'`. */
  signatureAlgorithm?: 'sha1' | 'sha256';
}

/**
 * A fake Cloudinary: `X-Cld-Timestamp` (Unix seconds of the attempt) and `X-Cld-Signature`, the
 * hex SHA-1 (or SHA-256) of the body, the timestamp and the API secret run together; a retry is
 * stamped and signed anew, its body unchanged.
 */
export function cloudinary(options: CloudinarySignerOptions) {
  const secret = secretOption('cloudinary', options, 'apiSecret');
  const algorithm = options.signatureAlgorithm ?? 'sha1';
  const { post } = secretSigner('cloudinary', options, secret);
  return {
    event: (payload: Payload, delivery?: DeliveryOptions): Delivery =>
      post(payload, delivery, ({ body, at, key }) => {
        const timestamp = String(seconds(at));
        const hash = createHash(algorithm).update(body).update(timestamp).update(key);
        return { 'x-cld-timestamp': timestamp, 'x-cld-signature': hash.digest('hex') };
      }),
  };
}
