/**
 * The test kit's signers of the token and public-key providers, each judged by the provider's own
 * SDK where it verifies offline: the signer's delivery and its retry are accepted, the forged copy
 * is refused.
 */
import * as signers from '@webhook-idempotency/providers/testing';
import { TelnyxWebhook } from 'telnyx/lib/webhooks';

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
