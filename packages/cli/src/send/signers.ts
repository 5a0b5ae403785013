/**
 * @module How `send` signs: for each preset factory, the test kit's signer of the same name
 * (`@webhook-idempotency/providers/testing`) given the credentials, the URL and the event, turned
 * into one delivery (method, URL, headers, exact body bytes) with its provider-style retry. The
 * presets signed with a shared secret or a token are here; those with key pairs, signed URLs,
 * batches and handshakes in `signers-more`.
 */
import * as kit from '@webhook-idempotency/providers/testing';
import { CliError, ExitCode } from '../exit-codes';
import { basicPair } from './credentials';
import { MORE } from './signers-more';
import { BODY_HMAC } from './signers-body-hmac';
import { FIELD_SIGNED } from './signers-field-signed';
import { STATIC_SECRETS } from './signers-static-secrets';
import { byBasic, bySecret, oneEvent, oneEventWith } from './signed-with';
import type { Wired } from './wired';

export type { Delivery, SendRequest, Wired } from './wired';

const UZUM_OPERATIONS = new Set(['check', 'create', 'confirm', 'reverse', 'status']);

/** Sends the payload as one event with the delivery id, where its provider sends one in a header. */
const withId = oneEventWith((r) => ({ id: r.id }));

/** The presets signed with a shared secret, a token or HTTP Basic, by preset factory name. */
const SHARED: Readonly<Record<string, Wired>> = {
  stripe: bySecret(kit.stripe, 'secret', oneEvent),
  github: bySecret(
    kit.github,
    'secret',
    oneEventWith((r) => ({ event: r.event, delivery: r.id })),
  ),
  shopify: bySecret(
    kit.shopify,
    'secret',
    oneEventWith((r) => ({ topic: r.event, webhookId: r.id })),
  ),
  telegram: bySecret(kit.telegram, 'secretToken', oneEvent),
  payme: byBasic(
    ({ url, username, password }) => kit.payme({ url, login: username, password }),
    oneEvent,
    'Paycom',
  ),
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
  click: bySecret(kit.click, 'secretKey', (signer, r) => {
    if (r.event === 'complete') return signer.complete(r.payload as kit.ClickComplete);
    if (r.event === 'prepare') return signer.prepare(r.payload as kit.ClickPrepare);
    throw new CliError(ExitCode.USAGE, 'click sends --event prepare or complete.');
  }),
  slack: bySecret(kit.slack, 'signingSecret', oneEvent),
  gitlab: bySecret(kit.gitlab, 'secretToken', oneEvent),
  razorpay: bySecret(kit.razorpay, 'secret', withId),
  checkout: bySecret(kit.checkout, 'secret', oneEvent),
  typeform: bySecret(kit.typeform, 'secret', oneEvent),
  vercel: bySecret(kit.vercel, 'secret', oneEvent),
  intercom: bySecret(kit.intercom, 'secret', oneEvent),
  coinbase: bySecret(kit.coinbase, 'secret', oneEvent),
  lemonsqueezy: bySecret(kit.lemonsqueezy, 'secret', oneEvent),
  bitbucket: bySecret(kit.bitbucket, 'secret', withId),
  standardWebhooks: bySecret(kit.standardWebhooks, 'secret', withId),
  clerk: bySecret(kit.clerk, 'secret', withId),
  resend: bySecret(kit.resend, 'secret', withId),
  openai: bySecret(kit.openai, 'secret', withId),
  replicate: bySecret(kit.replicate, 'secret', withId),
  stytch: bySecret(kit.stytch, 'secret', withId),
  polar: bySecret(kit.polar, 'secret', withId),
  dodopayments: bySecret(kit.dodopayments, 'secret', withId),
  supabaseAuthHooks: bySecret(kit.supabaseAuthHooks, 'secret', withId),
  paddle: bySecret(kit.paddle, 'secret', oneEvent),
  calendly: bySecret(kit.calendly, 'signingKey', oneEvent),
  airwallex: bySecret(kit.airwallex, 'secret', oneEvent),
  paystack: bySecret(kit.paystack, 'secretKey', oneEvent),
  sentry: bySecret(kit.sentry, 'clientSecret', withId),
  linear: bySecret(
    kit.linear,
    'secret',
    oneEventWith((r) => ({ delivery: r.id })),
  ),
  zoom: bySecret(kit.zoom, 'secretToken', oneEvent),
  twitch: bySecret(kit.twitch, 'secret', withId),
  mailgun: bySecret(kit.mailgun, 'signingKey', oneEvent),
  workos: bySecret(kit.workos, 'secret', oneEvent),
  elevenlabs: bySecret(kit.elevenlabs, 'secret', oneEvent),
  sanity: bySecret(kit.sanity, 'secret', oneEvent),
  mux: bySecret(kit.mux, 'secret', oneEvent),
  webflow: bySecret(kit.webflow, 'secret', oneEvent),
  recurly: bySecret(kit.recurly, 'secret', oneEvent),
  revolut: bySecret(kit.revolut, 'signingSecret', oneEvent),
  persona: bySecret(kit.persona, 'secret', oneEvent),
};

/** The presets `send` can sign for, by the name of their preset factory. */
export const WIRED: Readonly<Record<string, Wired>> = {
  ...SHARED,
  ...MORE,
  ...BODY_HMAC,
  ...STATIC_SECRETS,
  ...FIELD_SIGNED,
};
