/**
 * @module How `send` signs: for each preset factory, the test kit's signer of the same name
 * (`@webhook-idempotency/providers/testing`) given the credentials, the URL and the event, turned
 * into one delivery (method, URL, headers, exact body bytes) with its provider-style retry. The
 * presets signed with a shared secret or a token are here; those with key pairs, signed URLs,
 * batches and handshakes in `signers-more`.
 */
import * as kit from '@webhook-idempotency/providers/testing';
import { CliError, ExitCode } from '../exit-codes';
import { basicPair, need } from './credentials';
import { MORE } from './signers-more';
import { BODY_HMAC } from './signers-body-hmac';
import { FIELD_SIGNED } from './signers-field-signed';
import { STATIC_SECRETS } from './signers-static-secrets';
import type { Delivery, SendRequest, Wired } from './wired';

export type { Delivery, SendRequest, Wired } from './wired';

const UZUM_OPERATIONS = new Set(['check', 'create', 'confirm', 'reverse', 'status']);

/** A signer whose `event(payload)` takes the payload alone, under the option `option`. */
const plain = (
  make: (options: { url: string } & Record<string, string>) => {
    event(payload: object): Delivery;
  },
  option: string,
): Wired => ({
  needs: `--secret <${option}>`,
  sign: ({ preset, credentials, url, payload }) =>
    make({ url, [option]: need(preset, credentials, 'secret', option) }).event(payload),
});

const secret = (r: SendRequest, what = 'secret') => need(r.preset, r.credentials, 'secret', what);

/**
 * A signer under `--secret <option>` whose `event(payload, delivery)` takes fields of the request
 * too (its event type, its id), under the names its provider gives them.
 */
const withDelivery = <D>(
  make: (options: { url: string; secret: string }) => {
    event(payload: object, delivery: D): Delivery;
  },
  delivery: (request: SendRequest) => D,
  option = 'secret',
): Wired => ({
  needs: `--secret <${option}>`,
  sign: (r) => make({ url: r.url, secret: secret(r, option) }).event(r.payload, delivery(r)),
});

/** A signer whose provider sends the delivery id in a header (`event(payload, { id })`). */
const withId = (
  make: (options: { url: string; secret: string }) => {
    event(payload: object, delivery: { id?: string }): Delivery;
  },
  option = 'secret',
): Wired => withDelivery(make, (r) => ({ id: r.id }), option);

/** The presets signed with a shared secret, a token or HTTP Basic, by preset factory name. */
const SHARED: Readonly<Record<string, Wired>> = {
  stripe: plain((o) => kit.stripe({ url: o.url, secret: o.secret! }), 'secret'),
  github: withDelivery(
    (o) => kit.github(o),
    (r) => ({ event: r.event, delivery: r.id }),
  ),
  shopify: withDelivery(
    (o) => kit.shopify(o),
    (r) => ({ topic: r.event, webhookId: r.id }),
  ),
  telegram: plain((o) => kit.telegram({ url: o.url, secretToken: o.secretToken! }), 'secretToken'),
  payme: {
    needs: '--password [--username]',
    sign: ({ credentials, url, payload }) => {
      const [login, password] = basicPair('payme', credentials, 'Paycom');
      return kit.payme({ url, login, password }).event(payload);
    },
  },
  uzum: {
    needs: '--username --password',
    sign: ({ credentials, url, payload, event }) => {
      if (!UZUM_OPERATIONS.has(event))
        throw new CliError(
          ExitCode.USAGE,
          `uzum sends an operation: --event ${[...UZUM_OPERATIONS].join(', ')}.`,
        );
      const [username, password] = basicPair('uzum', credentials);
      return kit.uzum({ url, username, password })[event as kit.UzumOperation](payload);
    },
  },
  click: {
    needs: '--secret <secretKey>',
    sign: (r) => {
      const signer = kit.click({ url: r.url, secretKey: secret(r, 'secretKey') });
      if (r.event === 'complete') return signer.complete(r.payload as kit.ClickComplete);
      if (r.event === 'prepare') return signer.prepare(r.payload as kit.ClickPrepare);
      throw new CliError(ExitCode.USAGE, 'click sends --event prepare or complete.');
    },
  },
  slack: plain((o) => kit.slack({ url: o.url, signingSecret: o.signingSecret! }), 'signingSecret'),
  gitlab: plain((o) => kit.gitlab({ url: o.url, secretToken: o.secretToken! }), 'secretToken'),
  razorpay: withId((o) => kit.razorpay(o)),
  checkout: plain((o) => kit.checkout({ url: o.url, secret: o.secret! }), 'secret'),
  typeform: plain((o) => kit.typeform({ url: o.url, secret: o.secret! }), 'secret'),
  vercel: plain((o) => kit.vercel({ url: o.url, secret: o.secret! }), 'secret'),
  intercom: plain((o) => kit.intercom({ url: o.url, secret: o.secret! }), 'secret'),
  coinbase: plain((o) => kit.coinbase({ url: o.url, secret: o.secret! }), 'secret'),
  lemonsqueezy: plain((o) => kit.lemonsqueezy({ url: o.url, secret: o.secret! }), 'secret'),
  bitbucket: withId((o) => kit.bitbucket(o)),
  standardWebhooks: withId((o) => kit.standardWebhooks(o)),
  clerk: withId((o) => kit.clerk(o)),
  resend: withId((o) => kit.resend(o)),
  openai: withId((o) => kit.openai(o)),
  replicate: withId((o) => kit.replicate(o)),
  stytch: withId((o) => kit.stytch(o)),
  polar: withId((o) => kit.polar(o)),
  dodopayments: withId((o) => kit.dodopayments(o)),
  supabaseAuthHooks: withId((o) => kit.supabaseAuthHooks(o)),
  paddle: plain((o) => kit.paddle({ url: o.url, secret: o.secret! }), 'secret'),
  calendly: plain((o) => kit.calendly({ url: o.url, signingKey: o.signingKey! }), 'signingKey'),
  airwallex: plain((o) => kit.airwallex({ url: o.url, secret: o.secret! }), 'secret'),
  paystack: plain((o) => kit.paystack({ url: o.url, secretKey: o.secretKey! }), 'secretKey'),
  sentry: withId((o) => kit.sentry({ url: o.url, clientSecret: o.secret }), 'clientSecret'),
  linear: withDelivery(
    (o) => kit.linear(o),
    (r) => ({ delivery: r.id }),
  ),
  zoom: plain((o) => kit.zoom({ url: o.url, secretToken: o.secretToken! }), 'secretToken'),
  twitch: withId((o) => kit.twitch(o)),
  mailgun: plain((o) => kit.mailgun({ url: o.url, signingKey: o.signingKey! }), 'signingKey'),
  workos: plain((o) => kit.workos({ url: o.url, secret: o.secret! }), 'secret'),
  elevenlabs: plain((o) => kit.elevenlabs({ url: o.url, secret: o.secret! }), 'secret'),
  sanity: plain((o) => kit.sanity({ url: o.url, secret: o.secret! }), 'secret'),
  mux: plain((o) => kit.mux({ url: o.url, secret: o.secret! }), 'secret'),
  webflow: plain((o) => kit.webflow({ url: o.url, secret: o.secret! }), 'secret'),
  recurly: plain((o) => kit.recurly({ url: o.url, secret: o.secret! }), 'secret'),
  revolut: plain(
    (o) => kit.revolut({ url: o.url, signingSecret: o.signingSecret! }),
    'signingSecret',
  ),
  persona: plain((o) => kit.persona({ url: o.url, secret: o.secret! }), 'secret'),
};

/** The presets `send` can sign for, by the name of their preset factory. */
export const WIRED: Readonly<Record<string, Wired>> = {
  ...SHARED,
  ...MORE,
  ...BODY_HMAC,
  ...STATIC_SECRETS,
  ...FIELD_SIGNED,
};
