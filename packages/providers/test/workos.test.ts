/**
 * The WorkOS preset, judged by `@workos-inc/node`'s own webhook code: its `computeSignature` signs
 * what the preset must accept, and its `verifyHeader` agrees with the preset on genuine and
 * altered requests. The SDK signs `${t}.${payload}` as text, so the bodies here are compact JSON,
 * the bytes WorkOS sends.
 */
import { WorkOS } from '@workos-inc/node';
import { workos } from '../src';
import { jsonRequest } from './helpers';
import { describeStamped } from './stamped-cases';

const sdk = new WorkOS('sk_test_webhook_idempotency').webhooks;
const SECRET = 'workos-webhook-secret';
const BODY = JSON.stringify({
  id: 'event_01HZ4Y7QK9W2JXM3V5T8R6N0PB',
  event: 'user.created',
  data: { object: 'user', id: 'user_01HZ4Y7QK9', email: 'ada@example.com' },
  created_at: '2026-12-06T12:00:00.000Z',
});
/** The header as WorkOS spells it (a space after the comma), signed by the SDK. */
const sign = async (at: number, body: string, secret: string) => ({
  'workos-signature': `t=${at}, v1=${await sdk.computeSignature(at, body, secret)}`,
});

describe('workos preset', () => {
  describeStamped({
    build: (options) => workos(options as never),
    option: 'secret',
    secret: SECRET,
    tolerance: 180,
    body: BODY,
    key: 'event_01HZ4Y7QK9W2JXM3V5T8R6N0PB',
    sign,
  });

  it('agrees with the SDK’s verifyHeader on a genuine and an altered request, at the real time', async () => {
    const preset = workos({ secret: SECRET });
    const headers = await sign(Date.now(), BODY, SECRET);
    const judge = (payload: string) =>
      sdk.verifyHeader({ payload, sigHeader: headers['workos-signature'], secret: SECRET }).then(
        () => true,
        () => false,
      );
    expect([await judge(BODY), preset.verify?.(jsonRequest(BODY, { headers }))]).toEqual([
      true,
      true,
    ]);
    const altered = BODY.replace('ada@', 'eve@');
    expect([await judge(altered), preset.verify?.(jsonRequest(altered, { headers }))]).toEqual([
      false,
      false,
    ]);
  });

  it('names the event by the body’s event, and ignores a stamp in seconds', async () => {
    const preset = workos({ secret: SECRET, clock: () => 1_796_112_000_000 });
    expect(preset.eventType(jsonRequest(BODY))).toBe('user.created');
    const seconds = await sign(1_796_112_000, BODY, SECRET);
    expect(preset.verify?.(jsonRequest(BODY, { headers: seconds }))).toBe(false);
  });
});
