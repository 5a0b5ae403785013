/**
 * @module Signers of the providers that sign with a token or a private key of their own kind
 * (Telnyx): each signs from the provider's documented scheme with `node:crypto`, under a key of
 * the test's (the public half is what the preset is given) or a secret the test chooses.
 */
import { createPublicKey, type KeyObject, sign } from 'node:crypto';
import { madeKey, objectOf, optionsOf, type Payload, seconds } from './common';
import type { Delivery, DeliveryOptions } from './delivery';
import { ed25519, type KeySignerOptions, privateKeyOf } from './asymmetric';
import { keyedSigner } from './post';

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
