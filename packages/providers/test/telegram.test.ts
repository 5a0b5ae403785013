import { ConfigError } from '@webhook-idempotency/core';
import { telegram } from '../src';
import { jsonRequest } from './helpers';

const TOKEN = 'aB3_xY9-zz0Qw8eR7tY6uI5oP4';
const update = {
  update_id: 874512345,
  message: {
    message_id: 4412,
    from: { id: 5512345678, is_bot: false, first_name: 'Aziz', language_code: 'uz' },
    chat: { id: 5512345678, first_name: 'Aziz', type: 'private' },
    date: 1715678400,
    text: '/start order-1042',
  },
};

const request = (token: string | string[] | undefined, body: unknown = update) =>
  jsonRequest(body, {
    headers: token === undefined ? {} : { 'x-telegram-bot-api-secret-token': token },
  });

describe('telegram preset', () => {
  const preset = telegram({ botId: 123456789, secretToken: TOKEN });

  it('describes itself', () => {
    expect(preset).toMatchObject({ provider: 'telegram', needsRawBody: false, retentionDays: 7 });
    expect(preset.passThrough).toBeUndefined();
  });

  describe('key', () => {
    it('is botId:update_id, the number as a decimal string', () => {
      expect(preset.key(request(TOKEN))).toBe('123456789:874512345');
      expect(
        telegram({ botId: '987654321', secretToken: TOKEN }).key(
          jsonRequest(update, { parsed: true, raw: false }),
        ),
      ).toBe('987654321:874512345');
    });

    it('is undefined without a usable update_id', () => {
      expect(preset.key(request(TOKEN, { message: update.message }))).toBeUndefined();
      expect(preset.key(request(TOKEN, { update_id: '874512345' }))).toBeUndefined();
      expect(preset.key(request(TOKEN, { update_id: 1.5 }))).toBeUndefined();
      expect(preset.key(request(TOKEN, { update_id: -1 }))).toBeUndefined();
    });
  });

  describe('verify', () => {
    it('accepts the secret token', () => {
      expect(preset.verify?.(request(TOKEN))).toBe(true);
    });

    it.each([
      ['a wrong token', 'aB3_xY9-zz0Qw8eR7tY6uI5oP5'],
      ['a prefix of the token', TOKEN.slice(0, 10)],
      ['a longer token', `${TOKEN}x`],
      ['an empty value', ''],
      ['a repeated header', [TOKEN, TOKEN]],
      ['a missing header', undefined],
    ])('rejects %s', (_label, token) => {
      expect(preset.verify?.(request(token))).toBe(false);
    });
  });

  describe('options', () => {
    it('refuses a whole bot token as botId, and says why', () => {
      expect(() =>
        telegram({ botId: '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw', secretToken: TOKEN }),
      ).toThrow(/bot token/);
    });

    it.each([
      [undefined, 'options'],
      [{ secretToken: TOKEN }, 'botId'],
      [{ botId: 'mybot', secretToken: TOKEN }, 'botId'],
      [{ botId: 0, secretToken: TOKEN }, 'botId'],
      [{ botId: 123, secretToken: '' }, 'secretToken'],
      [{ botId: 123, secretToken: 'has spaces' }, 'secretToken'],
      [{ botId: 123, secretToken: 'x'.repeat(257) }, 'secretToken'],
    ])('%j throws a ConfigError naming %s', (options, option) => {
      expect(() => telegram(options as never)).toThrow(ConfigError);
      expect(() => telegram(options as never)).toThrow(expect.objectContaining({ option }));
    });
  });
});
