/** docs/providers.md (the third batch of presets): every `preset.key(x); // 'key'` comment is the key the preset really reads. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as snippets from '../src/providers-more';
import { commentedKeys as keysIn } from './helpers/commented-keys';
import { jsonRequest } from './helpers/requests';

const source = readFileSync(join(__dirname, '..', 'src', 'providers-more.ts'), 'utf8');

/** The keys the comments of a region of the snippets promise. */
const commentedKeys = (region: string) => keysIn(source, region);

const json = jsonRequest;

Object.assign(process.env, {
  PAYPAL_WEBHOOK_ID: '8PT597110X687430LKGECATA',
  COINBASE_COMMERCE_WEBHOOK_SECRET: 'coinbase-secret',
  LEMONSQUEEZY_WEBHOOK_SECRET: 'lemon-secret',
  AIRWALLEX_WEBHOOK_SECRET: 'airwallex-secret',
  PAYSTACK_SECRET_KEY: 'sk_test_paystack',
  CALENDLY_WEBHOOK_SIGNING_KEY: 'calendly-key',
  SENTRY_CLIENT_SECRET: 'sentry-secret',
  BITBUCKET_WEBHOOK_SECRET: 'bitbucket-secret',
  POSTMARK_WEBHOOK_PASSWORD: 'postmark-password',
});

const cases: Array<[region: string, run: () => Record<string, unknown>]> = [
  [
    'wise',
    () =>
      snippets.wiseKeys(
        json(
          { event_type: 'transfers#state-change' },
          { 'x-delivery-id': '2c1d4e0f-6b7a-4d21-9a1e-3f0c5b8d7e62' },
        ),
      ),
  ],
  ['paypal', () => snippets.paypalKeys(json({ id: 'WH-2WR32451HC0233532-67976317FL4543714' }))],
  [
    'coinbase',
    () =>
      snippets.coinbaseKeys(
        json({ id: 'delivery', event: { id: '24934862-d980-46cb-9402-43c81b0cdba6' } }),
      ),
  ],
  [
    'lemonsqueezy',
    () =>
      snippets.lemonSqueezyKeys(
        json({
          meta: { event_name: 'subscription_updated' },
          data: {
            type: 'subscriptions',
            id: '1',
            attributes: { updated_at: '2026-12-01T10:00:00.000000Z' },
          },
        }),
      ),
  ],
  ['airwallex', () => snippets.airwallexKeys(json({ id: 'e5b8a1c2-7d3f-4a9e-b6c1-0f2d3e4a5b6c' }))],
  [
    'paystack',
    () => snippets.paystackKeys(json({ event: 'charge.success', data: { id: 302961 } })),
  ],
  [
    'calendly',
    () =>
      snippets.calendlyKeys(
        json({
          event: 'invitee.created',
          payload: {
            uri: 'https://api.calendly.com/scheduled_events/GBGBDCAADAEDCRZ2/invitees/AAAAAAAAAAAAAAAA',
          },
        }),
      ),
  ],
  [
    'sentry-bitbucket',
    () =>
      snippets.sentryBitbucketKeys(
        json({}, { 'request-id': 'f6bc3a11-0b6f-4e2e-9d9f-5d6a0c3f9e21' }),
        json({}, { 'x-request-uuid': '8a8c5b1e-3c2f-4f1a-9d2b-6e7f8a9b0c1d' }),
      ),
  ],
  [
    'postmark',
    () =>
      snippets.postmarkKeys(
        json({
          RecordType: 'Delivery',
          MessageID: '883953f4-6105-42a2-a16a-77a8eac79483',
          Recipient: 'john@example.com',
        }),
      ),
  ],
];

it.each(cases)('%s: the key in the comment is the key the preset reads', (region, run) => {
  const expected = commentedKeys(region);
  expect(Object.keys(expected).length).toBeGreaterThan(0);
  expect(run()).toEqual(expected);
});
