import { createHmac } from 'node:crypto';
import { EventCallbackHelper, EventCallbackRequest } from '@dropbox/sign';
import { ConfigError } from '@webhook-idempotency/core';
import { dropboxSign } from '../src';
import { makeRequest } from './helpers';

// Judged by @dropbox/sign 1.11's EventCallbackHelper.isValid (hex HMAC-SHA256 of event_time +
// event_type under the API key), on the callback parsed by the SDK's own EventCallbackRequest.init.
const API_KEY = 'dropbox-sign-api-key-of-ours';
const TIME = '1765022400';
const hash = (time: string, type: string, key = API_KEY) =>
  createHmac('sha256', key).update(`${time}${type}`).digest('hex');
const callback = (type = 'signature_request_signed', extra: object = {}, time = TIME) => ({
  event: {
    event_time: time,
    event_type: type,
    event_hash: hash(time, type),
    event_metadata: { related_signature_id: 'sig_7', reported_for_account_id: 'acct_1' },
  },
  signature_request: { signature_request_id: 'sr_42', title: 'NDA', is_complete: false },
  ...extra,
});
const BOUNDARY = '------------------------a1b2c3';
const multipart = (json: string, boundary = BOUNDARY) =>
  makeRequest({
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    rawBody: `--${boundary}\r\nContent-Disposition: form-data; name="json"\r\n\r\n${json}\r\n--${boundary}--\r\n`,
  });
const judged = (json: object, key = API_KEY) =>
  EventCallbackHelper.isValid(key, EventCallbackRequest.init(json));

describe('dropboxSign preset', () => {
  const preset = dropboxSign({ apiKey: API_KEY });

  it('describes itself and names the event type', () => {
    expect(preset).toMatchObject({
      provider: 'dropbox-sign',
      needsRawBody: true,
      retentionDays: 14,
    });
    expect(preset.eventType(multipart(JSON.stringify(callback())))).toBe(
      'signature_request_signed',
    );
  });

  it('accepts what the SDK accepts, refuses another key or a changed time or type', () => {
    const genuine = callback();
    expect(judged(genuine)).toBe(true);
    expect(preset.verify?.(multipart(JSON.stringify(genuine)))).toBe(true);
    expect(judged(genuine, 'another key')).toBe(false);
    expect(
      dropboxSign({ apiKey: 'another key' }).verify?.(multipart(JSON.stringify(genuine))),
    ).toBe(false);
    for (const event of [
      { ...genuine.event, event_type: 'signature_request_declined' },
      { ...genuine.event, event_time: '1765022401' },
      { ...genuine.event, event_hash: undefined },
    ]) {
      const changed = { ...genuine, event };
      expect(judged(changed)).toBe(false);
      expect(preset.verify?.(multipart(JSON.stringify(changed)))).toBe(false);
    }
  });

  it('does not cover the rest of the body: the same hash passes with another signature request', () => {
    const swapped = callback('signature_request_signed', {
      signature_request: { signature_request_id: 'sr_other' },
    });
    expect(judged(swapped)).toBe(true);
    expect(preset.verify?.(multipart(JSON.stringify(swapped)))).toBe(true);
    expect(preset.key(multipart(JSON.stringify(swapped)))).toBe(
      `signature_request_signed:${TIME}:sr_other:sig_7`,
    );
  });

  it('keys on type, time, object and signer; a re-send under another boundary is the same receipt', () => {
    const json = JSON.stringify(callback());
    const key = `signature_request_signed:${TIME}:sr_42:sig_7`;
    expect(preset.key(multipart(json))).toBe(key);
    expect(preset.key(multipart(json, 'another-boundary'))).toBe(key);
    expect(preset.fingerprint?.(multipart(json, 'another-boundary'))).toBe(
      preset.fingerprint?.(multipart(json)),
    );
    const template = { ...callback('template_created'), signature_request: undefined };
    const created = { ...template, template: { template_id: 'tpl_1' } };
    expect(preset.key(multipart(JSON.stringify(created)))).toBe(
      `template_created:${TIME}:tpl_1:sig_7`,
    );
    const { signature_request: _none, ...bare } = callback();
    expect(preset.key(multipart(JSON.stringify(bare)))).toBeUndefined();
  });

  it('reads the json field a form parser left, or a urlencoded body', () => {
    const json = JSON.stringify(callback());
    expect(preset.verify?.(makeRequest({ body: { json } }))).toBe(true);
    const urlencoded = makeRequest({
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      rawBody: new URLSearchParams({ json }).toString(),
    });
    expect(preset.verify?.(urlencoded)).toBe(true);
    expect(preset.verify?.(makeRequest({ rawBody: json }))).toBe(false);
  });

  it('answers a verified callback_test itself, and refuses in plain text, never the success text', () => {
    const test = multipart(JSON.stringify(callback('callback_test')));
    const answer = preset.handshake?.(test);
    expect(answer?.status).toBe(200);
    expect(answer?.body.toString()).toBe('Hello API Event Received');
    expect(preset.handshake?.(multipart(JSON.stringify(callback())))).toBeUndefined();
    const refused = preset.unauthorized?.(test);
    const busy = preset.inProgress?.(test, 3);
    for (const record of [refused, busy]) {
      expect(record?.headers['content-type']).toMatch(/^text\/plain/);
      expect(record?.body.toString()).not.toContain('Hello API Event Received');
    }
    expect([refused?.status, busy?.status, busy?.headers['retry-after']]).toEqual([401, 409, '3']);
  });

  it('checks event_time only when given a window, both ways', () => {
    const now = Number(TIME) * 1000;
    const bounded = dropboxSign({ apiKey: API_KEY, toleranceSeconds: 60, clock: () => now });
    for (const [offset, accepted] of [
      [-60, true],
      [-61, false],
      [61, false],
    ] as const) {
      const time = String(Number(TIME) + offset);
      const json = JSON.stringify(callback(undefined, {}, time));
      expect(bounded.verify?.(multipart(json))).toBe(accepted);
      expect(preset.verify?.(multipart(json))).toBe(true);
    }
  });

  it('accepts the old and the new key while you change it; refuses bad options by name', () => {
    const both = dropboxSign({ apiKey: ['old key', API_KEY] });
    const old = callback();
    old.event.event_hash = hash(TIME, 'signature_request_signed', 'old key');
    expect(both.verify?.(multipart(JSON.stringify(old)))).toBe(true);
    expect(both.verify?.(multipart(JSON.stringify(callback())))).toBe(true);
    expect(() => dropboxSign({ apiKey: '' })).toThrow(ConfigError);
    expect(() => dropboxSign({ apiKey: API_KEY, toleranceSeconds: -1 })).toThrow(
      expect.objectContaining({ option: 'toleranceSeconds' }),
    );
  });
});
