/** What a page shows of a stored header: every signature and credential header a preset reads is masked. */
import { headerValue } from '../src/format';

/** The signature and credential headers the presets of @webhook-idempotency/providers read. */
const SECRET_HEADERS = [
  'authorization',
  'calendly-webhook-signature',
  'cko-signature',
  'linear-signature',
  'paddle-signature',
  'paypal-transmission-sig',
  'sentry-hook-signature',
  'stripe-signature',
  'svix-signature',
  'twitch-eventsub-message-signature',
  'typeform-signature',
  'webhook-signature',
  'x-cc-webhook-signature',
  'x-gitlab-token',
  'x-hub-signature',
  'x-hub-signature-256',
  'x-hubspot-signature-v3',
  'x-paystack-signature',
  'x-razorpay-signature',
  'x-shopify-hmac-sha256',
  'x-signature',
  'x-signature-ed25519',
  'x-signature-sha256',
  'x-slack-signature',
  'x-square-hmacsha256-signature',
  'x-telegram-bot-api-secret-token',
  'x-twilio-email-event-webhook-signature',
  'x-twilio-signature',
  'x-vercel-signature',
  'x-zm-signature',
];

describe('headerValue', () => {
  it.each(SECRET_HEADERS)('masks %s', (name) => {
    expect(headerValue(name, 'SIGVALUE1234')).toBe('•••• masked (12 characters)');
    expect(headerValue(name.toUpperCase(), ['a', 'b'])).toBe('•••• masked (4 characters)');
  });

  it.each(['content-type', 'x-github-delivery', 'paypal-cert-url', 'x-request-id', 'user-agent'])(
    'shows %s as it is',
    (name) => {
      expect(headerValue(name, 'value-1')).toBe('value-1');
    },
  );
});
