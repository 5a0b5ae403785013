import { ConfigError } from '@webhook-idempotency/core';
import { postmark } from '../src';
import { jsonRequest } from './helpers';

// Postmark signs nothing: its webhooks carry the credentials of the webhook URL as HTTP Basic
// ("Webhooks overview", postmarkapp.com/developer/webhooks). The key fields follow the payloads
// of Postmark's webhook reference (Delivery, Bounce, Spam complaint, Open, Click, Subscription
// change, Inbound).
const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const MESSAGE = '883953f4-6105-42a2-a16a-77a8eac79483';
const request = (payload: object, authorization?: string) =>
  jsonRequest(payload, { headers: authorization === undefined ? {} : { authorization } });

describe('postmark preset', () => {
  const preset = postmark({ username: 'postmark', password: 'correct horse battery staple' });

  it('describes itself', () => {
    expect(preset).toMatchObject({ provider: 'postmark', needsRawBody: false, retentionDays: 7 });
  });

  it('keys each record type on the fields that name one record of it', () => {
    const key = (payload: object) => preset.key(request(payload));
    expect(key({ RecordType: 'Delivery', MessageID: MESSAGE, Recipient: 'a@example.com' })).toBe(
      `Delivery:${MESSAGE}:a@example.com`,
    );
    // An id beyond 2^53 loses digits in JSON.parse: no key (400) rather than another record's.
    expect(
      preset.key(jsonRequest('{"RecordType":"Bounce","ID":9007199254740993}')),
    ).toBeUndefined();
    expect(key({ RecordType: 'Bounce', ID: 692560173, MessageID: MESSAGE })).toBe(
      'Bounce:692560173',
    );
    expect(key({ RecordType: 'SpamComplaint', ID: 42 })).toBe('SpamComplaint:42');
    const open = {
      RecordType: 'Open',
      MessageID: MESSAGE,
      Recipient: 'a@example.com',
      ReceivedAt: '2026-12-01T10:00:00Z',
    };
    expect(key(open)).toBe(`Open:${MESSAGE}:a@example.com:2026-12-01T10:00:00Z`);
    expect(key({ ...open, ReceivedAt: '2026-12-01T11:00:00Z' })).not.toBe(key(open));
    expect(key({ ...open, RecordType: 'Click', OriginalLink: 'https://example.com/a' })).toBe(
      `Click:${MESSAGE}:a@example.com:2026-12-01T10:00:00Z:https://example.com/a`,
    );
    expect(
      key({
        RecordType: 'SubscriptionChange',
        MessageID: MESSAGE,
        Recipient: 'a@example.com',
        ChangedAt: '2026-12-01T10:00:00Z',
      }),
    ).toBe(`SubscriptionChange:${MESSAGE}:a@example.com:2026-12-01T10:00:00Z`);
    expect(key({ MessageID: MESSAGE, FromFull: { Email: 'b@example.com' } })).toBe(
      `Inbound:${MESSAGE}`,
    );
    expect(key({ RecordType: 'Delivery', MessageID: MESSAGE })).toBeUndefined();
    expect(key({ RecordType: 'Unknown', MessageID: MESSAGE })).toBeUndefined();
  });

  it('accepts the webhook URL credentials, compared as HTTP Basic', () => {
    const payload = { RecordType: 'Delivery', MessageID: MESSAGE, Recipient: 'a@example.com' };
    expect(
      preset.verify?.(request(payload, basic('postmark', 'correct horse battery staple'))),
    ).toBe(true);
    expect(preset.verify?.(request(payload, basic('postmark', 'wrong')))).toBe(false);
    expect(preset.verify?.(request(payload, basic('other', 'correct horse battery staple')))).toBe(
      false,
    );
    expect(preset.verify?.(request(payload, 'Bearer x'))).toBe(false);
    expect(preset.verify?.(request(payload))).toBe(false);
  });

  it('throws a ConfigError naming the option', () => {
    expect(() => postmark({ username: '', password: 'x' })).toThrow(ConfigError);
    expect(() => postmark({ username: 'a:b', password: 'x' })).toThrow(/username/);
    expect(() => postmark({ username: 'a', password: '' })).toThrow(/password/);
  });
});
