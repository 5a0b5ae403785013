/**
 * docs/providers.md, "Secrets" and "Event types": the presets of the snippets verify what their
 * secrets sign (deliveries made by the test kit) (either secret of a rotation; a tenant's own secret, the tenant in the key) and
 * refuse the rest; the typed preset's event map is Stripe's own (checked by `tsc`).
 */
import type { HttpRequest } from '@webhook-idempotency/core';
import * as signers from '@webhook-idempotency/providers/testing';
import { perCustomer, rotating, typedStripe } from '../src/secrets';

const event = { id: 'evt_1', type: 'payment_intent.succeeded' };

/** The request record of a kit delivery, as an adapter hands it to the preset. */
const record = (delivery: signers.Delivery): HttpRequest => ({
  method: delivery.method,
  url: delivery.path,
  headers: delivery.headers,
  rawBody: delivery.body,
  body: undefined,
  native: undefined,
});

/** A delivery Stripe signs with `secret`, now, to `path`. */
const stripeDelivery = (secret: string, path = '/webhooks/stripe') =>
  record(signers.stripe({ secret, url: `https://shop.example.com${path}` }).event(event));

/** A Postmark delivery sent with HTTP Basic credentials `hook:password`. */
const postmarkDelivery = (password: string) =>
  record(
    signers
      .postmark({ username: 'hook', password })
      .event({ RecordType: 'Delivery', MessageID: 'm-1' }),
  );

const pair = (n: number) => ({ publicKey: `public-${n}`, privateKey: `private-${n}` });

describe('docs/providers.md: secrets', () => {
  const env = { ...process.env };
  beforeEach(() => {
    process.env.STRIPE_SECRET_NEW = 'whsec_new';
    process.env.STRIPE_SECRET_OLD = 'whsec_old';
  });
  afterEach(() => {
    process.env = { ...env };
  });

  it('rotation: either secret verifies, a third does not', async () => {
    const [stripe, postmark] = rotating('old-pass', 'new-pass', pair(1), pair(2));
    expect(await stripe!.verify!(stripeDelivery('whsec_old'))).toBe(true);
    expect(await stripe!.verify!(stripeDelivery('whsec_new'))).toBe(true);
    expect(await stripe!.verify!(stripeDelivery('whsec_other'))).toBe(false);
    expect(await postmark!.verify!(postmarkDelivery('old-pass'))).toBe(true);
    expect(await postmark!.verify!(postmarkDelivery('new-pass'))).toBe(true);
    expect(await postmark!.verify!(postmarkDelivery('guess'))).toBe(false);
  });

  it('a resolver per customer: the tenant from the path, its own secret, the tenant in the key; a failing lookup is a refusal, reported', async () => {
    const secrets: Record<string, string[]> = { acct_a: ['whsec_a'], acct_b: ['whsec_b'] };
    const warned: unknown[] = [];
    const preset = perCustomer(
      {
        stripeSecrets: async (tenant) => {
          if (tenant === 'acct_down') throw new Error('database down');
          return tenant ? secrets[tenant] : undefined;
        },
      },
      { warn: (fields) => warned.push(fields) },
    );
    const a = stripeDelivery('whsec_a', '/webhooks/stripe/acct_a');
    expect(await preset.verify!(a)).toBe(true);
    expect(preset.key(a)).toBe('acct_a:evt_1');
    // acct_b's secret does not open acct_a's door, and an unknown account is refused.
    expect(await preset.verify!(stripeDelivery('whsec_b', '/webhooks/stripe/acct_a'))).toBe(false);
    expect(await preset.verify!(stripeDelivery('whsec_a', '/webhooks/stripe/acct_zz'))).toBe(false);
    expect(await preset.verify!(stripeDelivery('whsec_a', '/webhooks/stripe/acct_down'))).toBe(
      false,
    );
    expect(warned).toEqual([expect.objectContaining({ tenant: 'acct_down' })]);
  });

  it("event types: the typed preset verifies like the plain one and names Stripe's event", async () => {
    process.env.STRIPE_WEBHOOK_SECRET = 'whsec_typed';
    const { preset, succeeded } = typedStripe();
    const delivery = stripeDelivery('whsec_typed');
    expect(await preset.verify!(delivery)).toBe(true);
    expect(preset.eventType(delivery)).toBe(succeeded);
  });
});
