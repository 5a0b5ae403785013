import { createHmac } from 'node:crypto';
import { ConfigError } from '@webhook-idempotency/core';
import { calendly } from '../src';
import { jsonRequest } from './helpers';

// No verifier ships in a Calendly npm package; the judge is Calendly's documented formula
// ("Webhook signatures", developer.calendly.com): Calendly-Webhook-Signature is `t=<unix>,v1=<hex>`,
// v1 the HMAC-SHA256 of `${t}.${body}` under the webhook signing key.
const SIGNING_KEY = 'calendly-signing-key';
const NOW_SECONDS = 1_796_112_000;
const INVITEE =
  'https://api.calendly.com/scheduled_events/GBGBDCAADAEDCRZ2/invitees/AAAAAAAAAAAAAAAA';
const body = (event: string) =>
  JSON.stringify({ event, created_at: '2026-12-01T10:00:00.000000Z', payload: { uri: INVITEE } });
const BODY = body('invitee.created');
const header = (t: number, text = BODY, key = SIGNING_KEY) =>
  `t=${t},v1=${createHmac('sha256', key).update(`${t}.${text}`).digest('hex')}`;
const request = (signature: string | undefined, text = BODY) =>
  jsonRequest(text, {
    headers: signature === undefined ? {} : { 'calendly-webhook-signature': signature },
  });

describe('calendly preset', () => {
  const preset = calendly({ signingKey: SIGNING_KEY, clock: () => NOW_SECONDS * 1000 });

  it('keys on the event name and the payload URI', () => {
    expect(preset).toMatchObject({ provider: 'calendly', needsRawBody: true, retentionDays: 7 });
    expect(preset.key(request(undefined))).toBe(`invitee.created:${INVITEE}`);
    expect(preset.key(request(undefined, body('invitee.canceled')))).toBe(
      `invitee.canceled:${INVITEE}`,
    );
    expect(preset.key(jsonRequest({ event: 'invitee.created', payload: {} }))).toBeUndefined();
  });

  it('verifies the documented formula within the tolerance, and refuses the rest', () => {
    expect(preset.verify?.(request(header(NOW_SECONDS)))).toBe(true);
    expect(preset.verify?.(request(header(NOW_SECONDS - 170)))).toBe(true);
    expect(preset.verify?.(request(header(NOW_SECONDS - 181)))).toBe(false);
    expect(preset.verify?.(request(header(NOW_SECONDS + 181)))).toBe(false);
    expect(preset.verify?.(request(header(NOW_SECONDS), BODY.replace('created', 'canceled')))).toBe(
      false,
    );
    expect(preset.verify?.(request(header(NOW_SECONDS, BODY, 'another')))).toBe(false);
    const moved = header(NOW_SECONDS).replace(`t=${NOW_SECONDS}`, `t=${NOW_SECONDS - 1}`);
    expect(preset.verify?.(request(moved))).toBe(false);
    expect(preset.verify?.(request(undefined))).toBe(false);
  });

  it('takes toleranceSeconds', () => {
    const wide = calendly({
      signingKey: SIGNING_KEY,
      clock: () => NOW_SECONDS * 1000,
      toleranceSeconds: 600,
    });
    expect(wide.verify?.(request(header(NOW_SECONDS - 500)))).toBe(true);
  });

  it('throws a ConfigError naming the option', () => {
    expect(() => calendly({ signingKey: '' })).toThrow(ConfigError);
    expect(() => calendly({ signingKey: 'k', toleranceSeconds: 0 })).toThrow(/toleranceSeconds/);
  });
});
