/**
 * Meta's webhooks: no SDK verifies them, so the judge is the documented formula (Graph API
 * Webhooks, "Getting started": "Validate payloads" and "Verification requests",
 * https://developers.facebook.com/docs/graph-api/webhooks/getting-started): `X-Hub-Signature-256`
 * is `sha256=` and the hex HMAC-SHA256 of the payload under the app secret; the verification GET
 * carries `hub.mode=subscribe`, `hub.verify_token` and `hub.challenge`, answered with the challenge.
 */
import { createHmac } from 'node:crypto';
import { ConfigError } from '@webhook-idempotency/core';
import { type MetaItem, meta } from '../src';
import { jsonRequest, makeRequest } from './helpers';

const SECRET = 'meta app secret of ours';
const whatsapp = JSON.stringify({
  object: 'whatsapp_business_account',
  entry: [
    {
      id: '102290129340398',
      changes: [
        {
          field: 'messages',
          value: {
            messaging_product: 'whatsapp',
            metadata: { display_phone_number: '15550783881', phone_number_id: '106540352242922' },
            contacts: [{ profile: { name: 'Sheena Nelson' }, wa_id: '16505551234' }],
            messages: [
              {
                from: '16505551234',
                id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQTRBNjU5OUFFRTAzODEwMTQ0RgA=',
                timestamp: '1749416383',
                type: 'text',
                text: { body: 'Does it come in another color?' },
              },
            ],
          },
        },
        {
          field: 'messages',
          value: {
            messaging_product: 'whatsapp',
            statuses: [
              {
                id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgARGBI3QzVGQ0E5MjY0QkI0RkE1MEQA',
                status: 'delivered',
                timestamp: '1749416400',
                recipient_id: '16505551234',
              },
            ],
          },
        },
      ],
    },
  ],
});
const messenger = JSON.stringify({
  object: 'page',
  entry: [
    {
      id: '1234567890',
      time: 1_749_416_383_000,
      messaging: [
        {
          sender: { id: '2345' },
          recipient: { id: '1234567890' },
          timestamp: 1_749_416_382_000,
          message: { mid: 'm_abc123', text: 'hello' },
        },
        { sender: { id: '2345' }, recipient: { id: '1234567890' }, read: { watermark: 17 } },
      ],
    },
  ],
});

/** The documented formula. */
const sign = (body: string, secret = SECRET) =>
  `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
const post = (body: string, signature?: string) =>
  jsonRequest(body, {
    headers: signature === undefined ? {} : { 'x-hub-signature-256': signature },
  });
const get = (query: string) => makeRequest({ method: 'GET', url: `/webhooks/meta?${query}` });

describe('meta preset', () => {
  const preset = meta({ appSecret: SECRET, verifyToken: 'our verify token' });

  it('describes itself: batched, one item per change or messaging event, keyed on its message id or content', () => {
    expect(preset).toMatchObject({ provider: 'meta', needsRawBody: true, retentionDays: 14 });
    const items = preset.items!(post(whatsapp))!;
    expect(items.map((item) => item.key)).toEqual([
      'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQTRBNjU5OUFFRTAzODEwMTQ0RgA=',
      'wamid.HBgLMTY1MDM4Nzk0MzkVAgARGBI3QzVGQ0E5MjY0QkI0RkE1MEQA:delivered',
    ]);
    const first = items[0]!.value as MetaItem;
    expect(first.object).toBe('whatsapp_business_account');
    expect(first.entry.id).toBe('102290129340398');
    expect(first.change?.field).toBe('messages');

    const page = preset.items!(post(messenger))!;
    expect(page[0]!.key).toBe('m_abc123');
    expect(page[1]!.key).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect((page[1]!.value as MetaItem).messaging).toMatchObject({ read: { watermark: 17 } });
    // The entry's time is left out of key and fingerprint: a retry may stamp it anew.
    const later = preset.items!(post(messenger.replace('1749416383000', '1749416999000')))!;
    expect(later.map((item) => [item.key, item.fingerprint])).toEqual(
      page.map((item) => [item.key, item.fingerprint]),
    );
    expect(preset.items!(post('{"object":"page"}'))).toBeUndefined();
  });

  it('accepts the documented signature of the raw body and refuses a tampered body or another secret', () => {
    expect(preset.verify!(post(whatsapp, sign(whatsapp)))).toBe(true);
    expect(preset.verify!(post(whatsapp.replace('color', 'colour'), sign(whatsapp)))).toBe(false);
    expect(preset.verify!(post(whatsapp, sign(whatsapp, 'another secret')))).toBe(false);
    expect(preset.verify!(post(whatsapp, sign(whatsapp).replace('sha256=', 'sha1=')))).toBe(false);
    expect(preset.verify!(post(whatsapp))).toBe(false);
  });

  it('answers the verification GET with the challenge when the token matches, 403 otherwise', () => {
    const good = get(
      'hub.mode=subscribe&hub.challenge=1158201444&hub.verify_token=our+verify+token',
    );
    const answer = preset.challenge!(good);
    expect(answer?.status).toBe(200);
    expect(answer?.body.toString()).toBe('1158201444');

    const wrong = get('hub.mode=subscribe&hub.challenge=1158201444&hub.verify_token=guess');
    expect(preset.challenge!(wrong)?.status).toBe(403);
    expect(preset.challenge!(wrong)?.body.toString()).not.toContain('1158201444');
    expect(preset.challenge!(get('hub.mode=subscribe&hub.challenge=1158201444'))?.status).toBe(403);

    // Anything else passes to the app's own route.
    expect(preset.challenge!(get('hub.mode=unsubscribe&hub.challenge=1'))).toBeUndefined();
    expect(
      preset.challenge!(get('hub.mode=subscribe&hub.verify_token=our+verify+token')),
    ).toBeUndefined();
    // Without a verify token the GET is left to the app's own route.
    expect(meta({ appSecret: SECRET }).challenge!(good)).toBeUndefined();
    // A GET is never a signed delivery.
    expect(preset.verify!(good)).toBe(false);
  });

  it.each([
    ['no options', 'options', undefined],
    ['no secret', 'appSecret', {}],
    ['an empty verify token', 'verifyToken', { appSecret: SECRET, verifyToken: '' }],
  ])('%s throws a ConfigError naming %s', (_label, option, options) => {
    expect(() => meta(options as never)).toThrow(ConfigError);
    expect(() => meta(options as never)).toThrow(expect.objectContaining({ option }));
  });
});
