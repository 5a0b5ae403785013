import { ConfigError } from '@webhook-idempotency/core';
import * as kit from '@webhook-idempotency/providers/testing';
import { googleCalendar } from '../src';
import { makeRequest } from './helpers';

// Google signs nothing: a push channel's notification is an empty POST whose headers name the
// channel (X-Goog-Channel-ID), echo the token set on `watch` (X-Goog-Channel-Token), number the
// message (X-Goog-Message-Number, 1 for the first, `sync`, message) and say what happened
// (X-Goog-Resource-State) (developers.google.com/calendar/api/guides/push). No SDK or vector: the
// test's own token, and the test kit's notifications.
const TOKEN = 'target=calendar-sync;secret=a-channel-token';
const CHANNEL = '01234567-89ab-cdef-0123456789ab';
const notification = (headers: Record<string, string>) =>
  makeRequest({
    rawBody: '',
    headers: {
      'x-goog-channel-id': CHANNEL,
      'x-goog-message-number': '398005',
      'x-goog-resource-state': 'exists',
      'x-goog-resource-id': 'ret08u3rv24htgh289g',
      ...headers,
    },
  });

describe('googleCalendar preset', () => {
  const preset = googleCalendar({ token: TOKEN });

  it('keys on channel id and message number, and names the resource state', () => {
    expect(preset).toMatchObject({
      provider: 'google-calendar',
      needsRawBody: false,
      retentionDays: 7,
    });
    const request = notification({ 'x-goog-channel-token': TOKEN });
    expect(preset.key(request)).toBe(`${CHANNEL}:398005`);
    expect(preset.eventType(request)).toBe('exists');
    expect(preset.key(notification({ 'x-goog-message-number': '' }))).toBeUndefined();
  });

  it.each([
    ['the channel token', { 'x-goog-channel-token': TOKEN }, true],
    ['another token', { 'x-goog-channel-token': 'guess' }, false],
    ['no token', {}, false],
  ])('verifies %s', (_label, headers, accepted) => {
    expect(preset.verify?.(notification(headers))).toBe(accepted);
  });

  it('answers the sync message itself, and nothing else', () => {
    const sync = notification({
      'x-goog-channel-token': TOKEN,
      'x-goog-resource-state': 'sync',
      'x-goog-message-number': '1',
    });
    expect(preset.handshake?.(sync)?.status).toBe(200);
    expect(preset.handshake?.(notification({ 'x-goog-channel-token': TOKEN }))).toBeUndefined();
  });

  it("accepts the test kit's notification and its retry under one key, refuses its forged copy", () => {
    const signer = kit.googleCalendar({ token: TOKEN, channelId: CHANNEL });
    const asRequest = (d: kit.Delivery) =>
      makeRequest({ url: d.path, headers: d.headers, rawBody: d.body });
    const delivery = signer.event({ messageNumber: 7 });
    expect(preset.verify?.(asRequest(delivery))).toBe(true);
    expect(preset.key(asRequest(delivery.retry()))).toBe(`${CHANNEL}:7`);
    expect(preset.verify?.(asRequest(delivery.forged()))).toBe(false);
    const sync = signer.sync();
    expect(preset.verify?.(asRequest(sync))).toBe(true);
    expect(preset.handshake?.(asRequest(sync))?.body.toString()).toBe(sync.answer);
  });

  it.each([
    [undefined, 'options'],
    [{}, 'token'],
    [{ token: '' }, 'token'],
  ])('%j throws a ConfigError naming %s', (options, option) => {
    expect(() => googleCalendar(options as never)).toThrow(ConfigError);
    expect(() => googleCalendar(options as never)).toThrow(expect.objectContaining({ option }));
  });
});
