import { createHmac } from 'node:crypto';
import { WebhookSignatureValidator } from 'mercadopago/dist/utils/webhook';
import { ConfigError } from '@webhook-idempotency/core';
import { mercadopago } from '../src';
import { jsonRequest } from './helpers';

// Judged by the mercadopago SDK 3.6's WebhookSignatureValidator.validate (no tolerance set), and
// by the manifest of Mercado Pago's "Validate notification origin" (id:…;request-id:…;ts:…;).
const SECRET = 'mp-secret-signature-of-ours';
const REQUEST_ID = 'bb56a2f1-6aae-46ac-982e-9dcd3581d08e';
const TS = '1704908010';
const body = JSON.stringify({
  id: 12345,
  live_mode: true,
  type: 'payment',
  date_created: '2026-12-04T10:04:58.396-04:00',
  user_id: 44444,
  api_version: 'v1',
  action: 'payment.updated',
  data: { id: '999999999' },
});

const hmacHex = (text: string, secret = SECRET) =>
  createHmac('sha256', secret).update(text).digest('hex');
const header = (manifest: string, secret = SECRET, ts = TS) =>
  `ts=${ts},v1=${hmacHex(manifest, secret)}`;
const request = (
  url: string,
  signature: string | undefined,
  requestId: string | null = REQUEST_ID,
  text = body,
) =>
  jsonRequest(text, {
    url,
    headers: {
      ...(signature === undefined ? {} : { 'x-signature': signature }),
      ...(requestId === null ? {} : { 'x-request-id': requestId }),
    },
  });
const judge = (
  xSignature: string,
  dataId: string | undefined,
  xRequestId: string | null = REQUEST_ID,
) => {
  try {
    WebhookSignatureValidator.validate({ xSignature, xRequestId, dataId, secret: SECRET });
    return true;
  } catch {
    return false;
  }
};

describe('mercadopago preset', () => {
  const preset = mercadopago({ secret: SECRET });
  const url = '/webhooks/mp?data.id=999999999&type=payment';
  const signed = header(`id:999999999;request-id:${REQUEST_ID};ts:${TS};`);

  it('describes itself and keys on the signed data.id and x-request-id', () => {
    expect(preset).toMatchObject({
      provider: 'mercadopago',
      needsRawBody: false,
      retentionDays: 30,
    });
    expect(preset.key(request(url, signed))).toBe(`999999999:${REQUEST_ID}`);
    expect(preset.key(request('/webhooks/mp', signed))).toBe(REQUEST_ID);
    expect(preset.key(request(url, signed, null))).toBeUndefined();
  });

  it("accepts what the SDK's validator accepts, and refuses what it refuses", () => {
    expect(judge(signed, '999999999')).toBe(true);
    expect(preset.verify?.(request(url, signed))).toBe(true);

    // Another resource, another request id, another secret, another ts: both refuse.
    expect(judge(signed, '999999998')).toBe(false);
    expect(preset.verify?.(request('/webhooks/mp?data.id=999999998', signed))).toBe(false);
    expect(judge(signed, '999999999', 'another-request')).toBe(false);
    expect(preset.verify?.(request(url, signed, 'another-request'))).toBe(false);
    const wrongSecret = header(`id:999999999;request-id:${REQUEST_ID};ts:${TS};`, 'another secret');
    expect(judge(wrongSecret, '999999999')).toBe(false);
    expect(preset.verify?.(request(url, wrongSecret))).toBe(false);
    const otherTs = signed.replace(`ts=${TS}`, 'ts=1704908011');
    expect(judge(otherTs, '999999999')).toBe(false);
    expect(preset.verify?.(request(url, otherTs))).toBe(false);
    for (const bad of ['v1=abc', `ts=${TS}`, `ts=x${TS},v1=${hmacHex('x')}`, '']) {
      expect(judge(bad, '999999999')).toBe(false);
      expect(preset.verify?.(request(url, bad))).toBe(false);
    }
  });

  it('leaves out of the manifest a part whose value is missing, as documented and as the SDK does', () => {
    const noRequestId = header(`id:999999999;ts:${TS};`);
    expect(judge(noRequestId, '999999999', null)).toBe(true);
    expect(preset.verify?.(request(url, noRequestId, null))).toBe(true);
    const noDataId = header(`request-id:${REQUEST_ID};ts:${TS};`);
    expect(judge(noDataId, undefined)).toBe(true);
    expect(preset.verify?.(request('/webhooks/mp?type=payment', noDataId))).toBe(true);
    // Spacing and order inside the header do not matter to either.
    const spaced = ` v1=${hmacHex(`id:999999999;request-id:${REQUEST_ID};ts:${TS};`)} , ts=${TS} `;
    expect(judge(spaced, '999999999')).toBe(true);
    expect(preset.verify?.(request(url, spaced))).toBe(true);
  });

  it('accepts an alphanumeric data.id signed lower-cased (the docs) or as received (the SDK)', () => {
    const orderUrl = '/webhooks/mp?data.id=ORD01JQ4S4KY8HWQ6NA5PXB65B3D3&type=order';
    const lower = header(`id:ord01jq4s4ky8hwq6na5pxb65b3d3;request-id:${REQUEST_ID};ts:${TS};`);
    expect(judge(lower, 'ord01jq4s4ky8hwq6na5pxb65b3d3')).toBe(true);
    expect(preset.verify?.(request(orderUrl, lower))).toBe(true);
    const asReceived = header(
      `id:ORD01JQ4S4KY8HWQ6NA5PXB65B3D3;request-id:${REQUEST_ID};ts:${TS};`,
    );
    expect(judge(asReceived, 'ORD01JQ4S4KY8HWQ6NA5PXB65B3D3')).toBe(true);
    expect(preset.verify?.(request(orderUrl, asReceived))).toBe(true);
    expect(preset.verify?.(request(orderUrl.replace('3D3', '3D4'), lower))).toBe(false);
  });

  it('does not sign the body: another body under a genuine signature passes, and is refused as another body by its key', () => {
    const forgedBody = body.replace('payment.updated', 'payment.created');
    expect(preset.verify?.(request(url, signed, REQUEST_ID, forgedBody))).toBe(true);
    expect(preset.key(request(url, signed, REQUEST_ID, forgedBody))).toBe(
      preset.key(request(url, signed)),
    );
  });

  it.each([
    [undefined, 'options'],
    [{}, 'secret'],
    [{ secret: '' }, 'secret'],
  ])('%j throws a ConfigError naming %s', (options, option) => {
    expect(() => mercadopago(options as never)).toThrow(ConfigError);
    expect(() => mercadopago(options as never)).toThrow(expect.objectContaining({ option }));
  });
});
