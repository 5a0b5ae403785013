/**
 * The test kit judged by the providers' own SDKs, offline: each signer's delivery is accepted by
 * the official verifier (the ones the presets' tests already use), its forged copy refused, and
 * where the SDK checks a time window, a delivery signed an hour ago refused too. The kit signs from
 * each provider's documented scheme; these verifiers are the independent second opinion.
 */
import { hmacValidator as HmacValidator } from '@adyen/api-library';
import { verifyWebhook } from '@clerk/backend/webhooks';
import { Signature } from '@hubspot/api-client';
import { LinearWebhookClient } from '@linear/sdk/webhooks';
import { validateSignature } from '@line/bot-sdk';
import { verify as githubVerify } from '@octokit/webhooks-methods';
import { webhooks as polarWebhooks } from '@polar-sh/sdk/2026-10';
import { EventWebhook } from '@sendgrid/eventwebhook';
import * as signers from '@webhook-idempotency/providers/testing';
import { accepts, HOUR_AGO, text } from './judging';
import braintreeSdk from 'braintree';
import { v2 as cloudinarySdk } from 'cloudinary';
import { EventCallbackHelper, EventCallbackRequest } from '@dropbox/sign';
import { Webhook as Coinbase } from 'coinbase-commerce-node';
import { verifyKey } from 'discord-interactions';
import { WebhookSignatureValidator } from 'mercadopago/dist/utils/webhook';
import { validateWebhookSignature } from 'razorpay/dist/utils/razorpay-utils';
import { Resend } from 'resend';
import { WebhooksHelper } from 'square';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { validateRequest, validateRequestWithBody } from 'twilio';
import { parse as gocardlessParse } from 'gocardless-nodejs/webhooks';
import MessageValidator from 'viber-bot/lib/message/message-validator';

describe('stripe: Stripe.webhooks.constructEvent', () => {
  const secret = 'whsec_kit_stripe_secret';
  const judge = (delivery: signers.Delivery, key = secret) =>
    accepts(() =>
      Stripe.webhooks.constructEvent(text(delivery), delivery.headers['stripe-signature']!, key),
    );
  const delivery = signers
    .stripe({ secret })
    .event({ id: 'evt_kit_1', object: 'event', type: 'payment_intent.succeeded' });

  it('accepts the delivery and its retry, refuses the forged copy and one signed an hour ago', async () => {
    expect(await judge(delivery)).toBe(true);
    expect(await judge(delivery.retry())).toBe(true);
    expect(await judge(delivery.forged())).toBe(false);
    expect(await judge(delivery.retry({ at: HOUR_AGO() }))).toBe(false);
  });

  it('while a secret rolls, each secret given signs a v1 the SDK accepts under that secret alone', async () => {
    const rolled = signers
      .stripe({ secret: [secret, 'whsec_kit_next'] })
      .event({ id: 'evt_kit_2' });
    expect(rolled.headers['stripe-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    expect(await judge(rolled, secret)).toBe(true);
    expect(await judge(rolled, 'whsec_kit_next')).toBe(true);
  });
});

describe('github: @octokit/webhooks-methods verify', () => {
  it('accepts the delivery, refuses the forged copy', async () => {
    const delivery = signers
      .github({ secret: 'kit github secret' })
      .event({ action: 'opened', comment: 'Привет 👋' });
    const signature = (d: signers.Delivery) => d.headers['x-hub-signature-256']!;
    expect(await githubVerify('kit github secret', text(delivery), signature(delivery))).toBe(true);
    expect(
      await githubVerify('kit github secret', text(delivery), signature(delivery.forged())),
    ).toBe(false);
  });
});

describe.each([
  ['standardWebhooks', signers.standardWebhooks, 'webhook'],
  ['clerk', signers.clerk, 'svix'],
  ['resend', signers.resend, 'svix'],
  ['openai', signers.openai, 'webhook'],
  ['replicate', signers.replicate, 'webhook'],
  ['stytch', signers.stytch, 'svix'],
  ['dodopayments', signers.dodopayments, 'webhook'],
  ['supabaseAuthHooks', signers.supabaseAuthHooks, 'webhook'],
] as const)('%s: standardwebhooks Webhook.verify', (_name, signer, prefix) => {
  const secret = `whsec_${Buffer.from('kit-standard-webhooks-secret-32b').toString('base64')}`;
  const headers = (d: signers.Delivery) => ({
    'webhook-id': d.headers[`${prefix}-id`]!,
    'webhook-timestamp': d.headers[`${prefix}-timestamp`]!,
    'webhook-signature': d.headers[`${prefix}-signature`]!,
  });
  const judge = (d: signers.Delivery) =>
    accepts(() => new StandardWebhook(secret).verify(text(d), headers(d)));

  it('accepts the delivery and its retry (same id, new time), refuses the forged copy and one signed an hour ago', async () => {
    const delivery = signer({ secret }).event({
      type: 'user.created',
      data: { id: 'user_kit' },
    });
    const retry = delivery.retry();
    expect(await judge(delivery)).toBe(true);
    expect(await judge(retry)).toBe(true);
    expect(retry.headers[`${prefix}-id`]).toBe(delivery.headers[`${prefix}-id`]);
    expect(await judge(delivery.forged())).toBe(false);
    expect(await judge(delivery.retry({ at: HOUR_AGO() }))).toBe(false);
  });
});

describe('polar: @polar-sh/sdk webhooks.validateEvent', () => {
  it('accepts the delivery (keyed with the secret as given) and its retry, refuses the forged copy and one signed an hour ago', async () => {
    const secret = 'polar_whs_kit-secret-as-polar-shows-it';
    const judge = (d: signers.Delivery) =>
      accepts(() =>
        polarWebhooks.validateEvent(text(d), d.headers as Record<string, string>, secret),
      );
    const delivery = signers
      .polar({ secret })
      .event({ type: 'order.paid', data: { id: 'order_kit' } });
    expect(await judge(delivery)).toBe(true);
    expect(await judge(delivery.retry())).toBe(true);
    expect(await judge(delivery.forged())).toBe(false);
    expect(await judge(delivery.retry({ at: HOUR_AGO() }))).toBe(false);
  });
});

describe("clerk: @clerk/backend verifyWebhook, on the kit's fetch Request", () => {
  it('accepts the delivery as a Request, refuses the forged copy', async () => {
    const secret = `whsec_${Buffer.from('kit-clerk-secret-of-32-bytes-ok!').toString('base64')}`;
    const delivery = signers
      .clerk({ secret })
      .event({ object: 'event', type: 'user.created', data: { id: 'user_kit' } });
    expect(
      await verifyWebhook(signers.toRequest(delivery), { signingSecret: secret }),
    ).toMatchObject({ type: 'user.created' });
    await expect(
      verifyWebhook(signers.toRequest(delivery.forged()), { signingSecret: secret }),
    ).rejects.toThrow();
  });
});

describe('resend: Resend webhooks.verify', () => {
  it('accepts the delivery, refuses the forged copy', async () => {
    const secret = `whsec_${Buffer.from('kit-resend-secret-of-32-bytes-ok').toString('base64')}`;
    const sdk = new Resend('re_kit_key');
    const judge = (d: signers.Delivery) =>
      accepts(() =>
        sdk.webhooks.verify({
          payload: text(d),
          headers: {
            id: d.headers['svix-id']!,
            timestamp: d.headers['svix-timestamp']!,
            signature: d.headers['svix-signature']!,
          },
          webhookSecret: secret,
        }),
      );
    const delivery = signers
      .resend({ secret })
      .event({ type: 'email.delivered', data: { email_id: 'e1' } });
    expect(await judge(delivery)).toBe(true);
    expect(await judge(delivery.forged())).toBe(false);
  });
});

describe('razorpay: validateWebhookSignature', () => {
  it('accepts the delivery, refuses the forged copy', () => {
    const delivery = signers
      .razorpay({ secret: 'kit razorpay secret' })
      .event({ entity: 'event', event: 'payment.captured' });
    const judge = (d: signers.Delivery) =>
      validateWebhookSignature(text(d), d.headers['x-razorpay-signature']!, 'kit razorpay secret');
    expect(judge(delivery)).toBe(true);
    expect(judge(delivery.forged())).toBe(false);
  });
});

describe('coinbase: coinbase-commerce-node Webhook.verifySigHeader', () => {
  it('accepts the delivery and its retry (attempt_number raised), refuses the forged copy', async () => {
    const delivery = signers
      .coinbase({ secret: 'kit coinbase secret' })
      .event({ id: 'd1', attempt_number: 1, event: { id: 'e1' } });
    const judge = (d: signers.Delivery) =>
      accepts(() =>
        Coinbase.verifySigHeader(
          text(d),
          d.headers['x-cc-webhook-signature']!,
          'kit coinbase secret',
        ),
      );
    expect(await judge(delivery)).toBe(true);
    expect(JSON.parse(text(delivery.retry()))).toMatchObject({ attempt_number: 2 });
    expect(await judge(delivery.retry())).toBe(true);
    expect(await judge(delivery.forged())).toBe(false);
  });
});

describe('discord: discord-interactions verifyKey', () => {
  it('accepts the interaction and the PING under signer.publicKey, refuses the forged copies', async () => {
    const signer = signers.discord();
    const judge = (d: signers.Delivery) =>
      verifyKey(
        d.body,
        d.headers['x-signature-ed25519']!,
        d.headers['x-signature-timestamp']!,
        signer.publicKey,
      );
    const command = signer.event({ id: '1247856129870041118', type: 2, data: { name: 'pay' } });
    const ping = signer.ping();
    expect(await judge(command)).toBe(true);
    expect(await judge(ping)).toBe(true);
    expect(ping.answer).toBe('{"type":1}');
    expect(await judge(command.forged())).toBe(false);
    expect(await judge(ping.forged())).toBe(false);
  });
});

describe('sendgrid: @sendgrid/eventwebhook verifySignature', () => {
  it('accepts the batch under signer.publicKey, refuses the forged copy', () => {
    const signer = signers.sendgrid();
    const webhook = new EventWebhook();
    const judge = (d: signers.Delivery) =>
      webhook.verifySignature(
        webhook.convertPublicKeyToECDSA(signer.publicKey),
        text(d),
        d.headers['x-twilio-email-event-webhook-signature']!,
        d.headers['x-twilio-email-event-webhook-timestamp']!,
      );
    const batch = signer.batch([
      { sg_event_id: 'sg-1', event: 'processed', email: 'a@example.com' },
      { sg_event_id: 'sg-2', event: 'delivered', email: 'a@example.com' },
    ]);
    expect(text(batch).endsWith(']\r\n')).toBe(true);
    expect(judge(batch)).toBe(true);
    expect(judge(batch.retry())).toBe(true);
    expect(judge(batch.forged())).toBe(false);
  });
});

describe('hubspot: @hubspot/api-client Signature.isValid (v3)', () => {
  const clientSecret = 'kit hubspot client secret';
  const targetUrl = 'https://app.example.com/webhooks/hubspot?portal=all';
  const judge = (d: signers.Delivery) =>
    accepts(() =>
      Signature.isValid({
        signatureVersion: 'v3',
        signature: d.headers['x-hubspot-signature-v3']!,
        clientSecret,
        requestBody: text(d),
        url: targetUrl,
        method: 'POST',
        timestamp: Number(d.headers['x-hubspot-request-timestamp']),
      }),
    );

  it('accepts the batch and its retry, refuses the forged copy and one signed an hour ago', async () => {
    const batch = signers.hubspot({ clientSecret, targetUrl }).batch([
      {
        eventId: 1,
        subscriptionId: 2,
        portalId: 3,
        attemptNumber: 0,
        subscriptionType: 'contact.creation',
      },
    ]);
    expect(await judge(batch)).toBe(true);
    expect(JSON.parse(text(batch.retry()))[0]).toMatchObject({ attemptNumber: 1 });
    expect(await judge(batch.retry())).toBe(true);
    expect(await judge(batch.forged())).toBe(false);
    expect(await judge(batch.retry({ at: HOUR_AGO() }))).toBe(false);
  });

  it('signs the URI with the escapes HubSpot decodes turned back, as HubSpot computes it', async () => {
    const escaped = 'https://app.example.com/webhooks/hubspot%3Ftenant=acme%40example%2Cb';
    const batch = signers.hubspot({ clientSecret, targetUrl: escaped }).batch([{ eventId: 1 }]);
    expect(batch.url).toBe(escaped);
    const decoded = 'https://app.example.com/webhooks/hubspot?tenant=acme@example,b';
    expect(
      Signature.isValid({
        signatureVersion: 'v3',
        signature: batch.headers['x-hubspot-signature-v3']!,
        clientSecret,
        requestBody: text(batch),
        url: decoded,
        method: 'POST',
        timestamp: Number(batch.headers['x-hubspot-request-timestamp']),
      }),
    ).toBe(true);
  });
});

describe('adyen: @adyen/api-library HmacValidator.validateHMAC', () => {
  it('signs every item as the SDK validates it; the forged copy signs none', () => {
    const hmacKey = '44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056';
    const items = [
      {
        pspReference: '7914073381342284',
        merchantAccountCode: 'KitECOM',
        merchantReference: 'o-1',
        amount: { value: 1130, currency: 'EUR' },
        eventCode: 'AUTHORISATION',
        success: 'true',
      },
      {
        pspReference: '8825408195409505',
        originalReference: '7914073381342284',
        merchantAccountCode: 'KitECOM',
        merchantReference: 'o-1',
        amount: { value: 1130, currency: 'EUR' },
        eventCode: 'CAPTURE',
        success: 'true',
        additionalData: { kept: 'yes' },
      },
    ];
    const batch = signers.adyen({ hmacKey }).batch(items);
    const validator = new HmacValidator();
    const itemsOf = (d: signers.Delivery) =>
      (
        JSON.parse(text(d)) as { notificationItems: { NotificationRequestItem: never }[] }
      ).notificationItems.map((entry) => entry.NotificationRequestItem);
    for (const item of itemsOf(batch)) expect(validator.validateHMAC(item, hmacKey)).toBe(true);
    expect(itemsOf(batch)[1]).toMatchObject({ additionalData: { kept: 'yes' } });
    for (const item of itemsOf(batch.forged()))
      expect(validator.validateHMAC(item, hmacKey)).toBe(false);
  });
});

describe('linear: @linear/sdk LinearWebhookClient.verify', () => {
  it('accepts the delivery (webhookTimestamp now) and its retry, refuses the forged copy and one signed an hour ago', async () => {
    const client = new LinearWebhookClient('kit linear secret');
    const judge = (d: signers.Delivery) =>
      accepts(() => client.verify(d.body, d.headers['linear-signature']!));
    const delivery = signers
      .linear({ secret: 'kit linear secret' })
      .event({ action: 'create', type: 'Issue', data: { id: 'i1' } });
    expect(delivery.headers['linear-event']).toBe('Issue');
    expect(await judge(delivery)).toBe(true);
    expect(await judge(delivery.retry())).toBe(true);
    expect(await judge(delivery.forged())).toBe(false);
    expect(await judge(delivery.retry({ at: HOUR_AGO() }))).toBe(false);
  });
});

describe('mercadopago: WebhookSignatureValidator.validate', () => {
  it('accepts the notification (data.id from the query, lower-cased in the manifest), refuses the forged copy', async () => {
    const judge = (d: signers.Delivery) =>
      accepts(() => {
        WebhookSignatureValidator.validate({
          xSignature: d.headers['x-signature']!,
          xRequestId: d.headers['x-request-id']!,
          // The docs: an alphanumeric data.id is lower-cased for the manifest; the SDK takes it as given.
          dataId: new URL(d.url).searchParams.get('data.id')?.toLowerCase(),
          secret: 'kit mercadopago secret',
        });
        return true;
      });
    const signer = signers.mercadopago({ secret: 'kit mercadopago secret' });
    const numeric = signer.event({
      type: 'payment',
      action: 'payment.updated',
      data: { id: '999999999' },
    });
    const alphanumeric = signer.event({ type: 'merchant_order', data: { id: 'ABC123def' } });
    expect(new URL(numeric.url).searchParams.get('type')).toBe('payment');
    expect(await judge(numeric)).toBe(true);
    expect(await judge(alphanumeric)).toBe(true);
    expect(await judge(numeric.forged())).toBe(false);
  });
});

describe('square: WebhooksHelper.verifySignature', () => {
  it('accepts the delivery for its notification URL, refuses the forged copy and the same signature for another URL', async () => {
    const notificationUrl = 'https://shop.example.com/webhooks/square?x=1';
    const judge = (d: signers.Delivery, url = notificationUrl) =>
      WebhooksHelper.verifySignature({
        requestBody: text(d),
        signatureHeader: d.headers['x-square-hmacsha256-signature']!,
        signatureKey: 'kit square key',
        notificationUrl: url,
      });
    const delivery = signers
      .square({ signatureKey: 'kit square key', notificationUrl })
      .event({ event_id: 'sq-1', type: 'payment.updated' });
    expect(delivery.url).toBe(notificationUrl);
    expect(await judge(delivery)).toBe(true);
    expect(await judge(delivery.forged())).toBe(false);
    expect(await judge(delivery, 'https://attacker.example/hook')).toBe(false);
  });
});

describe('twilio: validateRequest and validateRequestWithBody', () => {
  const url = 'https://example.com:8443/sms?tenant=a&x=a%20b';
  const signer = signers.twilio({ authToken: 'kit-twilio-auth-token', url });

  it('signs a form post (repeated names, sorted) as validateRequest checks it; the forged copy fails', () => {
    const fields: [string, string][] = [
      ['To', '+15550001111'],
      ['Body', 'Hello & welcome, 100% + more'],
      ['MediaUrl', 'https://b.example'],
      ['MediaUrl', 'https://a.example'],
    ];
    const delivery = signer.event(fields);
    const params: Record<string, string | string[]> = {};
    for (const [name, value] of new URLSearchParams(text(delivery))) {
      const seen = params[name];
      params[name] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
    }
    expect(
      validateRequest(
        'kit-twilio-auth-token',
        delivery.headers['x-twilio-signature']!,
        url,
        params,
      ),
    ).toBe(true);
    expect(
      validateRequest(
        'kit-twilio-auth-token',
        delivery.forged().headers['x-twilio-signature']!,
        url,
        params,
      ),
    ).toBe(false);
  });

  it('signs a JSON body through bodySHA256 as validateRequestWithBody checks it', () => {
    const delivery = signer.json({ CallSid: 'CA1', status: 'completed' });
    expect(new URL(delivery.url).searchParams.get('bodySHA256')).toMatch(/^[0-9a-f]{64}$/);
    const judge = (d: signers.Delivery) =>
      validateRequestWithBody(
        'kit-twilio-auth-token',
        d.headers['x-twilio-signature']!,
        d.url,
        text(d),
      );
    expect(judge(delivery)).toBe(true);
    expect(judge(delivery.forged())).toBe(false);
  });
});

describe('braintree: BraintreeGateway webhookNotification.parse and verify', () => {
  const gateway = new braintreeSdk.BraintreeGateway({
    environment: braintreeSdk.Environment.Sandbox,
    merchantId: 'kit_merchant',
    publicKey: 'kit_public_key',
    privateKey: 'kit_private_key_0123456789',
  });
  const signer = signers.braintree({
    publicKey: 'kit_public_key',
    privateKey: 'kit_private_key_0123456789',
  });
  const parse = (d: signers.Delivery) => {
    const fields = new URLSearchParams(text(d));
    return gateway.webhookNotification.parse(
      fields.get('bt_signature')!,
      fields.get('bt_payload')!,
    );
  };

  it('the SDK parses the notification the kit signs, and refuses its forged copy', async () => {
    const delivery = signer.event(
      { kind: 'check', subject: '<check type="boolean">true</check>' },
      { at: Date.UTC(2026, 11, 4, 10) },
    );
    expect(await parse(delivery)).toMatchObject({ kind: 'check' });
    await expect(parse(delivery.forged())).rejects.toThrow();
  });

  it("the challenge's answer is the SDK's verify of it", () => {
    const challenge = signer.challenge('38aa0fc4d7cf1e85b6d5a8e9');
    const verify = (gateway.webhookNotification as unknown as { verify(c: string): string }).verify;
    expect(challenge.answer).toBe(
      verify.call(gateway.webhookNotification, '38aa0fc4d7cf1e85b6d5a8e9'),
    );
    expect(new URL(challenge.url).searchParams.get('bt_challenge')).toBe(
      '38aa0fc4d7cf1e85b6d5a8e9',
    );
  });
});

describe('cloudinary: utils.verifyNotificationSignature', () => {
  it.each(['sha1', 'sha256'] as const)(
    'accepts the delivery and its retry under %s, refuses the forged copy and one signed three hours ago',
    (signatureAlgorithm) => {
      const apiSecret = 'kit-cloudinary-secret';
      cloudinarySdk.config({ api_secret: apiSecret, signature_algorithm: signatureAlgorithm });
      const judge = (delivery: signers.Delivery) =>
        cloudinarySdk.utils.verifyNotificationSignature(
          text(delivery),
          Number(delivery.headers['x-cld-timestamp']),
          delivery.headers['x-cld-signature']!,
        );
      const delivery = signers
        .cloudinary({ apiSecret, signatureAlgorithm })
        .event({ notification_type: 'upload', public_id: 'kit/cat' });
      expect(judge(delivery)).toBe(true);
      expect(judge(delivery.retry())).toBe(true);
      expect(judge(delivery.forged())).toBe(false);
      expect(judge(delivery.retry({ at: Date.now() - 3 * 3_600_000 }))).toBe(false);
    },
  );
});

describe('dropboxSign: EventCallbackHelper.isValid', () => {
  it("accepts the event (the json part, parsed by the SDK's model) and the callback test, refuses the forged copies", () => {
    const apiKey = 'kit-dropbox-sign-key';
    const jsonOf = (delivery: signers.Delivery) => {
      const part = /\r\n\r\n(\{.*\})\r\n--/s.exec(text(delivery))?.[1];
      return EventCallbackRequest.init(JSON.parse(part ?? 'null'));
    };
    const judge = (delivery: signers.Delivery) =>
      EventCallbackHelper.isValid(apiKey, jsonOf(delivery));
    const signer = signers.dropboxSign({ apiKey });
    const event = signer.event('signature_request_signed', {
      signature_request: { signature_request_id: 'sr_kit' },
    });
    const test = signer.callbackTest();
    expect(test.answer).toBe('Hello API Event Received');
    for (const delivery of [event, event.retry(), test]) expect(judge(delivery)).toBe(true);
    for (const delivery of [event.forged(), test.forged()]) expect(judge(delivery)).toBe(false);
  });
});

describe('line: @line/bot-sdk validateSignature', () => {
  const channelSecret = 'kit line channel secret';
  const judge = (delivery: signers.Delivery, key = channelSecret) =>
    accepts(() => validateSignature(delivery.body, key, delivery.headers['x-line-signature']!));
  const delivery = signers
    .line({ channelSecret })
    .batch([{ type: 'follow', webhookEventId: '01KIT0000000000000000000LN' }]);

  it('accepts the batch, its redelivery and the verification request, refuses the forged copy', async () => {
    expect(await judge(delivery)).toBe(true);
    expect(await judge(delivery.retry())).toBe(true);
    expect(await judge(signers.line({ channelSecret }).verification())).toBe(true);
    expect(await judge(delivery.forged())).toBe(false);
    expect(await judge(delivery, 'another secret')).toBe(false);
  });
});

describe('gocardless: gocardless-nodejs webhooks.parse', () => {
  const secret = 'kit gocardless endpoint secret';
  const judge = (delivery: signers.Delivery, key = secret) =>
    accepts(() => gocardlessParse(delivery.body, key, delivery.headers['webhook-signature']!));
  const delivery = signers
    .gocardless({ secret })
    .batch([{ id: 'EV0KIT', resource_type: 'payments', action: 'confirmed' }]);

  it('accepts the batch and its retry, refuses the forged copy', async () => {
    expect(await judge(delivery)).toBe(true);
    expect(await judge(delivery.retry())).toBe(true);
    expect(await judge(delivery.forged())).toBe(false);
    expect(await judge(delivery, 'another secret')).toBe(false);
  });
});

describe('viber: viber-bot MessageValidator', () => {
  const authToken = 'kit viber bot token';
  const judge = (delivery: signers.Delivery, key = authToken) =>
    accepts(() =>
      new MessageValidator({ debug: () => undefined }, key).validateMessage(
        delivery.headers['x-viber-content-signature']!,
        delivery.body.toString(),
      ),
    );
  const signer = signers.viber({ authToken });
  const delivery = signer.event({ event: 'message', message_token: 1, sender: { id: 'u1' } });

  it('accepts the callback, its retry and the webhook callback, refuses the forged copy', async () => {
    expect(await judge(delivery)).toBe(true);
    expect(await judge(delivery.retry())).toBe(true);
    expect(await judge(signer.webhookCallback())).toBe(true);
    expect(await judge(delivery.forged())).toBe(false);
    expect(await judge(delivery, 'another token')).toBe(false);
  });
});
