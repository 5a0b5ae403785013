/**
 * The test kit's signers of the token and public-key providers, each judged by the provider's own
 * SDK where it verifies offline: the signer's delivery and its retry are accepted, the forged copy
 * is refused.
 */
import * as signers from '@webhook-idempotency/providers/testing';
import { TelnyxWebhook } from 'telnyx/lib/webhooks';
import { Receiver } from '@upstash/qstash';
import { verifySignature } from '@vonage/jwt';

/** True when `judge` resolves without throwing. */
async function accepts(judge: () => Promise<unknown>): Promise<boolean> {
  try {
    await judge();
    return true;
  } catch {
    return false;
  }
}

describe('telnyx: telnyx TelnyxWebhook.verify', () => {
  it('accepts the event and its retry under signer.publicKey, refuses the forged copy', async () => {
    const signer = signers.telnyx();
    const sdk = new TelnyxWebhook(signer.publicKey);
    const judge = (d: signers.Delivery) =>
      accepts(() =>
        sdk.verify(d.body.toString('utf8'), { ...d.headers } as Record<string, string>),
      );
    const event = signer.event({ data: { id: 'b301ed3f', event_type: 'message.received' } });
    expect(await judge(event)).toBe(true);
    expect(await judge(event.retry())).toBe(true);
    expect(await judge(event.forged())).toBe(false);
  });
});

describe('qstash: @upstash/qstash Receiver.verify', () => {
  it('accepts the message and its retry under the signing key and URL, refuses the forged copy', async () => {
    const url = 'https://example.com/api/qstash';
    const signer = signers.qstash({ signingKey: 'sig_current_kit', url });
    const receiver = new Receiver({
      currentSigningKey: 'sig_current_kit',
      nextSigningKey: 'sig_next',
    });
    const judge = (d: signers.Delivery) =>
      accepts(() =>
        receiver.verify({
          signature: d.headers['upstash-signature']!,
          body: d.body.toString('utf8'),
          url,
        }),
      );
    const event = signer.event({ order: 6735 });
    expect(await judge(event)).toBe(true);
    expect(await judge(event.retry())).toBe(true);
    expect(await judge(event.forged())).toBe(false);
  });
});

describe('vonage: @vonage/jwt verifySignature', () => {
  it("accepts the token of the event and its retry under the secret, refuses the forged copy's", () => {
    const signer = signers.vonage({ signatureSecret: 'vonage-kit-secret' });
    const judge = (d: signers.Delivery) =>
      verifySignature(d.headers.authorization!.replace(/^Bearer /, ''), 'vonage-kit-secret');
    const event = signer.event({ message_uuid: 'u-1', status: 'delivered' });
    expect(judge(event)).toBe(true);
    expect(judge(event.retry())).toBe(true);
    expect(judge(event.forged())).toBe(false);
  });
});
