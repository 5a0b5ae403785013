/**
 * @module The raw-body HMAC presets `send` signs for (the `hmac()` family's catalogue B): each
 * under `--secret`, its provider's own secret named; a batched one sends a one-item batch unless
 * `--body` holds several.
 */
import * as kit from '@webhook-idempotency/providers/testing';
import { itemsOf, need } from './credentials';
import type { Wired } from './wired';

/** The presets of this module, by preset factory name. */
export const BODY_HMAC: Readonly<Record<string, Wired>> = {
  line: {
    needs: '--secret <channelSecret>',
    sign: (r) =>
      kit
        .line({
          url: r.url,
          channelSecret: need(r.preset, r.credentials, 'secret', 'channelSecret'),
        })
        .batch(itemsOf(r.preset, r.payload)),
  },
  notion: {
    needs: '--secret <token>',
    sign: (r) =>
      kit
        .notion({
          url: r.url,
          verificationToken: need(r.preset, r.credentials, 'secret', 'verificationToken'),
        })
        .event(r.payload),
  },
  gocardless: {
    needs: '--secret <secret>',
    sign: (r) =>
      kit
        .gocardless({ url: r.url, secret: need(r.preset, r.credentials, 'secret', 'secret') })
        .batch(itemsOf(r.preset, r.payload)),
  },
  viber: {
    needs: '--secret <authToken>',
    sign: (r) =>
      kit
        .viber({ url: r.url, authToken: need(r.preset, r.credentials, 'secret', 'authToken') })
        .event(r.payload),
  },
  woocommerce: {
    needs: '--secret <secret>',
    sign: (r) =>
      kit
        .woocommerce({ url: r.url, secret: need(r.preset, r.credentials, 'secret', 'secret') })
        .event(r.payload),
  },
};
