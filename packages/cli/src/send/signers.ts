/**
 * @module How `send` signs: for each preset it can send, the test kit's signer of the same name
 * (`@webhook-idempotency/providers/testing`) given the secret, the URL and the event, turned into
 * one delivery (method, URL, headers, exact body bytes) with its provider-style retry.
 */
import * as kit from '@webhook-idempotency/providers/testing';
import { CliError, ExitCode } from '../exit-codes';

/** A delivery as the kit makes it: what `send` posts, and its retry. */
export type Delivery = kit.Delivery;

/** What one send asks for. */
export interface SendRequest {
  /** The secret the preset was given (`user:password` where it takes HTTP Basic credentials). */
  readonly secret: string;
  /** The event type or operation (`push`, `orders/create`, `prepare`, `check`). */
  readonly event: string;
  /** The delivery's id, where the provider sends it in a header (GitHub, Shopify). */
  readonly id: string;
  /** Where it goes: the kit signs it where the provider signs the URL. */
  readonly url: string;
  /** An object (sent as its JSON; Click: its form fields) or the exact bytes of `--body`. */
  readonly payload: object;
}

/** A preset `send` can sign for: what its secret is, and how a delivery is made. */
export interface Wired {
  /** What `--secret` holds, for the help and the error without one. */
  readonly secret: string;
  sign(request: SendRequest): Delivery;
}

/** `login:password`, or the password alone with `login` as the login. */
function credentials(preset: string, secret: string, login?: string): [string, string] {
  const colon = secret.indexOf(':');
  if (colon > 0) return [secret.slice(0, colon), secret.slice(colon + 1)];
  if (login !== undefined) return [login, secret];
  throw new CliError(
    ExitCode.USAGE,
    `${preset} signs with HTTP Basic: pass --secret user:password.`,
  );
}

const UZUM_OPERATIONS = new Set(['check', 'create', 'confirm', 'reverse', 'status']);

/** A signer whose `event(payload)` takes the payload alone, under the option `option`. */
const plain = (
  make: (options: { url: string } & Record<string, string>) => {
    event(payload: object): Delivery;
  },
  option: string,
): Wired => ({
  secret: option,
  sign: ({ secret, url, payload }) => make({ url, [option]: secret }).event(payload),
});

/** The presets `send` can sign for, by the name of their preset factory. */
export const WIRED: Readonly<Record<string, Wired>> = {
  stripe: plain((o) => kit.stripe({ url: o.url, secret: o.secret! }), 'secret'),
  github: {
    secret: 'secret',
    sign: ({ secret, url, payload, event, id }) =>
      kit.github({ secret, url }).event(payload, { event, delivery: id }),
  },
  shopify: {
    secret: 'secret',
    sign: ({ secret, url, payload, event, id }) =>
      kit.shopify({ secret, url }).event(payload, { topic: event, webhookId: id }),
  },
  telegram: plain((o) => kit.telegram({ url: o.url, secretToken: o.secretToken! }), 'secretToken'),
  payme: {
    secret: 'password or login:password',
    sign: ({ secret, url, payload }) => {
      const [login, password] = credentials('payme', secret, 'Paycom');
      return kit.payme({ url, login, password }).event(payload);
    },
  },
  uzum: {
    secret: 'username:password',
    sign: ({ secret, url, payload, event }) => {
      if (!UZUM_OPERATIONS.has(event))
        throw new CliError(
          ExitCode.USAGE,
          `uzum sends an operation: --event ${[...UZUM_OPERATIONS].join(', ')}.`,
        );
      const [username, password] = credentials('uzum', secret);
      const signer = kit.uzum({ url, username, password });
      return signer[event as kit.UzumOperation](payload);
    },
  },
  click: {
    secret: 'secretKey',
    sign: ({ secret, url, payload, event }) => {
      const signer = kit.click({ url, secretKey: secret });
      if (event === 'complete') return signer.complete(payload as kit.ClickComplete);
      if (event === 'prepare') return signer.prepare(payload as kit.ClickPrepare);
      throw new CliError(ExitCode.USAGE, 'click sends --event prepare or complete.');
    },
  },
  slack: plain((o) => kit.slack({ url: o.url, signingSecret: o.signingSecret! }), 'signingSecret'),
  gitlab: plain((o) => kit.gitlab({ url: o.url, secretToken: o.secretToken! }), 'secretToken'),
  razorpay: plain((o) => kit.razorpay({ url: o.url, secret: o.secret! }), 'secret'),
  checkout: plain((o) => kit.checkout({ url: o.url, secret: o.secret! }), 'secret'),
  typeform: plain((o) => kit.typeform({ url: o.url, secret: o.secret! }), 'secret'),
  vercel: plain((o) => kit.vercel({ url: o.url, secret: o.secret! }), 'secret'),
  intercom: plain((o) => kit.intercom({ url: o.url, secret: o.secret! }), 'secret'),
  coinbase: plain((o) => kit.coinbase({ url: o.url, secret: o.secret! }), 'secret'),
  lemonsqueezy: plain((o) => kit.lemonsqueezy({ url: o.url, secret: o.secret! }), 'secret'),
  bitbucket: plain((o) => kit.bitbucket({ url: o.url, secret: o.secret! }), 'secret'),
  standardWebhooks: plain((o) => kit.standardWebhooks({ url: o.url, secret: o.secret! }), 'secret'),
  clerk: plain((o) => kit.clerk({ url: o.url, secret: o.secret! }), 'secret'),
  resend: plain((o) => kit.resend({ url: o.url, secret: o.secret! }), 'secret'),
};
