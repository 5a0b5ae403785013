/**
 * The test kit's signers of the timestamped-HMAC family judged by the providers' own SDKs, offline:
 * each signer's delivery is accepted by the official verifier, its forged copy refused, and where
 * the SDK checks a time window, a delivery signed an hour ago refused too.
 */
import { Webhooks as MuxWebhooks } from '@mux/mux-node/resources/webhooks';
import { WorkOS } from '@workos-inc/node';
import * as signers from '@webhook-idempotency/providers/testing';
import { accepts, HOUR_AGO, text } from './judging';

describe('workos: WorkOS webhooks.verifyHeader', () => {
  const sdk = new WorkOS('sk_test_kit').webhooks;
  const secret = 'workos-kit-secret';
  const judge = (delivery: signers.Delivery, key = secret) =>
    accepts(() =>
      sdk.verifyHeader({
        payload: text(delivery),
        sigHeader: delivery.headers['workos-signature']!,
        secret: key,
      }),
    );
  const delivery = signers.workos({ secret }).event({ id: 'event_kit_1', event: 'user.created' });

  it('accepts the delivery and its retry, refuses the forged copy and one signed an hour ago', async () => {
    expect(delivery.headers['workos-signature']).toMatch(/^t=\d{13}, v1=[0-9a-f]{64}$/);
    expect(await judge(delivery)).toBe(true);
    expect(await judge(delivery.retry())).toBe(true);
    expect(await judge(delivery.forged())).toBe(false);
    expect(await judge(delivery.retry({ at: HOUR_AGO() }))).toBe(false);
  });
});

describe('mux: Mux Webhooks.verifySignature', () => {
  const sdk = new MuxWebhooks({} as never);
  const secret = 'mux-kit-secret';
  const judge = (delivery: signers.Delivery, key = secret) =>
    accepts(() => sdk.verifySignature(text(delivery), delivery.headers, key).then(() => true));
  const delivery = signers.mux({ secret }).event({ id: 'mux_kit_1', type: 'video.asset.ready' });

  it('accepts the delivery and its retry, refuses the forged copy and one signed an hour ago', async () => {
    expect(await judge(delivery)).toBe(true);
    expect(await judge(delivery.retry())).toBe(true);
    expect(await judge(delivery.forged())).toBe(false);
    expect(await judge(delivery.retry({ at: HOUR_AGO() }))).toBe(false);
  });

  it('while a secret rolls, each secret signs a v1 the SDK accepts under that secret alone', async () => {
    const rolled = signers.mux({ secret: [secret, 'mux-kit-next'] }).event({ id: 'mux_kit_2' });
    expect(await judge(rolled)).toBe(true);
    expect(await judge(rolled, 'mux-kit-next')).toBe(true);
  });
});
