import { createHmac } from 'node:crypto';
import { ConfigError } from '@webhook-idempotency/core';
import MessageValidator from 'viber-bot/lib/message/message-validator';
import { viber } from '../src';
import { jsonRequest } from './helpers';

const TOKEN = '445da6az1s345z78-dazcczb2542zv51a-e0vc5fva17480im9';
const sdk = new MessageValidator({ debug: () => undefined }, TOKEN);
const message = (token: string, sender = '01234567890A=') =>
  `{"event":"message","timestamp":1457764197627,"message_token":${token},"sender":{"id":"${sender}","name":"John McClane"},"message":{"type":"text","text":"a message to the service"}}`;
const sign = (text: string, secret = TOKEN) =>
  createHmac('sha256', secret).update(text).digest('hex');
const request = (text: string, signature = sign(text)) =>
  jsonRequest(text, { headers: { 'x-viber-content-signature': signature } });

describe('viber preset', () => {
  const preset = viber({ authToken: TOKEN });
  const body = message('4912661846655238145');

  it('describes itself: 7 days, raw body, the event name from the body', () => {
    expect(preset).toMatchObject({ provider: 'viber', needsRawBody: true, retentionDays: 7 });
    expect(preset.eventType(request(body))).toBe('message');
  });

  it('accepts what the bot token signs, as viber-bot judges it; refuses a forged or altered one', () => {
    const signature = sign(body);
    expect(sdk.validateMessage(signature, body)).toBe(true);
    expect(preset.verify?.(request(body, signature))).toBe(true);
    const altered = body.replace('a message', 'another message');
    expect(sdk.validateMessage(signature, altered)).toBe(false);
    expect(preset.verify?.(request(altered, signature))).toBe(false);
    expect(preset.verify?.(request(body, sign(body, 'another')))).toBe(false);
    expect(preset.verify?.(jsonRequest(body))).toBe(false);
  });

  it("accepts the SDK's own signed example under its token", () => {
    const token = '44dafb7e0f40021e-61a47a1e6778d187-f2c5a676a07050b3';
    const text =
      '{"event":"webhook","timestamp":4977069964384421269,"message_token":1478683725125}';
    const signature = 'd21b343448c8aee33b8e93768ef6ceb64a6ba6163099973a2b8bd028fea510ef';
    expect(viber({ authToken: token }).verify?.(request(text, signature))).toBe(true);
  });

  it('keys on event, the exact 64-bit message_token and the user', () => {
    expect(preset.key(request(body))).toBe('message:4912661846655238145:01234567890A=');
    // Two tokens a JavaScript number reads alike stay apart.
    expect(preset.key(request(message('4912661846655238146')))).toBe(
      'message:4912661846655238146:01234567890A=',
    );
    const seen = (user: string) =>
      `{"event":"seen","timestamp":1457764197627,"message_token":4912661846655238145,"user_id":"${user}"}`;
    expect(preset.key(request(seen('u1')))).toBe('seen:4912661846655238145:u1');
    expect(preset.key(request(seen('u2')))).toBe('seen:4912661846655238145:u2');
    expect(preset.key(request('{"event":"message","timestamp":1}'))).toBeUndefined();
  });

  it('answers the signed webhook callback 200 itself; a message is no handshake', () => {
    const callback = '{"event":"webhook","timestamp":1457764197627,"message_token":241256543215}';
    expect(preset.verify?.(request(callback))).toBe(true);
    expect(preset.handshake?.(request(callback))).toMatchObject({ status: 200 });
    expect(preset.handshake?.(request(body))).toBeUndefined();
  });

  it('takes the old and the new token while it is regenerated', () => {
    const both = viber({ authToken: ['old bot token', TOKEN] });
    expect(both.verify?.(request(body, sign(body, 'old bot token')))).toBe(true);
    expect(both.verify?.(request(body))).toBe(true);
    expect(both.verify?.(request(body, sign(body, 'third')))).toBe(false);
  });

  it.each([
    [undefined, 'options'],
    [{}, 'authToken'],
    [{ authToken: '' }, 'authToken'],
  ])('%j throws a ConfigError naming %s', (options, option) => {
    expect(() => viber(options as never)).toThrow(ConfigError);
    expect(() => viber(options as never)).toThrow(expect.objectContaining({ option }));
  });
});
