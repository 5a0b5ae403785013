import { createHmac } from 'node:crypto';
import { ConfigError } from '@webhook-idempotency/core';
import * as signers from '@webhook-idempotency/providers/testing';
import { pagerduty } from '../src';
import { jsonRequest } from './helpers';

// No SDK for Node verifies PagerDuty's signature (its Go client does) and its docs publish no
// vector: judged by a node:crypto digest of the documented formula (hex HMAC-SHA256 of the raw
// body, `v1=` per secret, comma-separated).
const SECRET = 'pagerduty-signing-secret-of-ours';
const BODY = JSON.stringify({
  event: {
    id: '01DEN3DAPKRM3UYEXIY6YVKYOD',
    event_type: 'incident.triggered',
    resource_type: 'incident',
    occurred_at: '2026-12-06T12:00:00.000Z',
    data: { id: 'PGR0VU2', type: 'incident', title: 'Disk full' },
  },
});
const v1 = (body: string, secret = SECRET) =>
  `v1=${createHmac('sha256', secret).update(body).digest('hex')}`;
const request = (body: string, signature?: string) =>
  jsonRequest(body, {
    headers: signature === undefined ? {} : { 'x-pagerduty-signature': signature },
  });

describe('pagerduty preset', () => {
  const preset = pagerduty({ secret: SECRET });

  it('describes itself, keys on event.id, names event.event_type', () => {
    expect(preset).toMatchObject({ provider: 'pagerduty', needsRawBody: true, retentionDays: 7 });
    expect(preset.key(request(BODY))).toBe('01DEN3DAPKRM3UYEXIY6YVKYOD');
    expect(preset.eventType(request(BODY))).toBe('incident.triggered');
    expect(preset.key(request('{"event":{}}'))).toBeUndefined();
  });

  it('accepts any v1 of the list under the secret; refuses a tampered body, another secret, other versions', () => {
    expect(preset.verify?.(request(BODY, v1(BODY)))).toBe(true);
    expect(preset.verify?.(request(BODY, `${v1(BODY, 'other')},${v1(BODY)}`))).toBe(true);
    expect(preset.verify?.(request(BODY, `${v1(BODY, 'other')}, ${v1(BODY)}`))).toBe(true);
    expect(preset.verify?.(request(BODY.replace('Disk', 'Disc'), v1(BODY)))).toBe(false);
    expect(preset.verify?.(request(BODY, v1(BODY, 'other')))).toBe(false);
    expect(preset.verify?.(request(BODY, v1(BODY).replace('v1=', 'v2=')))).toBe(false);
    expect(preset.verify?.(request(BODY))).toBe(false);
  });

  it('takes the old and the new secret while you rotate; the kit signs one v1 per secret', () => {
    const both = pagerduty({ secret: ['old', SECRET] });
    expect(both.verify?.(request(BODY, v1(BODY, 'old')))).toBe(true);
    const delivery = signers.pagerduty({ secret: ['old', SECRET] }).event(JSON.parse(BODY));
    const header = delivery.headers['x-pagerduty-signature'];
    expect(header).toBe(`${v1(BODY, 'old')},${v1(BODY)}`);
    expect(preset.verify?.(request(delivery.body.toString(), header))).toBe(true);
    const forged = delivery.forged();
    expect(
      preset.verify?.(request(forged.body.toString(), forged.headers['x-pagerduty-signature'])),
    ).toBe(false);
  });

  it('refuses bad options by name', () => {
    expect(() => pagerduty({ secret: '' })).toThrow(ConfigError);
    expect(() => pagerduty({} as never)).toThrow(expect.objectContaining({ option: 'secret' }));
  });
});
