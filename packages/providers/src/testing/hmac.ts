/**
 * @module The signer of `providers.hmac({ … })`: any provider that signs with an HMAC, configured
 * with the same options as the preset (the header, digest, spelling, prefix, signed parts and
 * timestamp), so one options object serves both.
 */
import { ConfigError } from '@webhook-idempotency/core';
import type { SignedRequest } from '../hmac';
import { JSON_TYPE, mac, optionsOf, type Payload, seconds, text } from './common';
import { type Delivery, type DeliveryOptions, newId, type SignerOptions } from './delivery';
import { keyedSigner } from './post';

/** What `signedPayload` gets: the preset's own type, so one function serves both. */
export type { SignedRequest };

/** Options of the {@link hmac} signer: the preset's options (those a signer needs). */
export interface HmacSignerOptions extends SignerOptions {
  secret: string | Buffer;
  secretEncoding?: 'utf8' | 'hex' | 'base64';
  signatureHeader: string;
  algorithm?: 'sha256' | 'sha1' | 'sha512';
  encoding?: 'hex' | 'base64';
  prefix?: string;
  signedPayload?: (request: SignedRequest) => readonly (string | Buffer)[];
  timestamp?: { header: string };
  /**
   * The header the preset reads the delivery id from; a function `key` cannot be written, so give
   * the id's header in `headers`; with `{ json }` the id is in the payload you give.
   */
  key?: string | ((request: never) => unknown) | { json: string };
}

/** Options of one delivery of the {@link hmac} signer. */
export interface HmacDeliveryOptions extends DeliveryOptions {
  /** The delivery id, sent in the `key` header. Defaults to a new one. */
  id?: string;
}

/**
 * A fake of any HMAC provider, signing as `providers.hmac(options)` checks: `prefix` and the
 * digest of `signedPayload` (the raw body by default) under `secret`, the timestamp header in Unix
 * seconds signed anew on a retry, the delivery id in the `key` header.
 */
export function hmac(options: HmacSignerOptions) {
  const o = optionsOf('hmac', options);
  const secret = Buffer.isBuffer(o.secret)
    ? o.secret
    : Buffer.from(text('hmac', 'secret', o.secret), o.secretEncoding ?? 'utf8');
  const header = text('hmac', 'signatureHeader', o.signatureHeader);
  if (o.signedPayload !== undefined && typeof o.signedPayload !== 'function')
    throw new ConfigError('signedPayload', 'testing.hmac() needs signedPayload as a function');
  const signedPayload = o.signedPayload ?? ((request: SignedRequest) => [request.body]);
  const forger = Buffer.concat([Buffer.from('forged'), secret]);
  const { url, post } = keyedSigner('hmac', o, [secret], () => [forger]);
  const path = new URL(url).pathname + new URL(url).search;
  return {
    event(payload: Payload, delivery: HmacDeliveryOptions = {}): Delivery {
      const id = typeof o.key === 'string' ? { [o.key]: delivery.id ?? newId() } : {};
      return post(payload, delivery, ({ body, at, key }) => {
        const stamp = o.timestamp === undefined ? undefined : String(seconds(at));
        const headers: Record<string, string> = {
          ...JSON_TYPE,
          ...id,
          ...(o.timestamp === undefined ? {} : { [o.timestamp.header]: stamp! }),
        };
        const parts = signedPayload({
          body,
          timestamp: stamp,
          method: 'POST',
          url: path,
          header: (name) => headers[name],
        });
        const digest = mac(o.algorithm ?? 'sha256', key, parts).toString(o.encoding ?? 'hex');
        return { ...headers, [header]: (o.prefix ?? '') + digest };
      });
    },
  };
}
