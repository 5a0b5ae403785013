import { generateKeyPairSync, sign } from 'node:crypto';
import { ConfigError } from '@webhook-idempotency/core';
import { WISE_PRODUCTION_PUBLIC_KEY, WISE_SANDBOX_PUBLIC_KEY, wise } from '../src';
import { jsonRequest } from './helpers';

// Wise publishes no verifier package; the judge is Wise's own example vector, from
// transferwise/digital-signatures-examples, verify-webhook-signature/verify-signature.js (the
// sandbox key, this body and this X-Signature-SHA256, which Wise's Java, Node, Ruby and PHP
// examples all verify as true).
const EXAMPLE_BODY =
  '{"data":{"resource":{"id":49983981,"profile_id":16055450,"account_id":14124090,"type":"transfer"},"current_state":"incoming_payment_waiting","previous_state":null,"occurred_at":"2021-08-23T10:12:50Z"},"subscription_id":"90aa8e14-4ef1-4a56-861c-f3c9cde097ea","event_type":"transfers#state-change","schema_version":"2.0.0","sent_at":"2021-08-23T10:12:50Z"}';
const EXAMPLE_SIGNATURE =
  'wKcKCYXAzxNgiu7xmoDm943NUni7Rz33QN8JkEA9dWSGebgndonabgSj18Y4C08OrwVmueGsED2s00M7DtJVcYKOS1i3G4TMVx+mgM3aL9djMBkQtiYNBFUd6wrPI7ZUNHv/TrlKSjTMc+6JFvUvJ7owY3z85e3I4jLRLJowMFvO8kvCJ60+1pY9wDwZvtZ//WS93LrwGjk9Dvwzpmu0w+P4J75tETT5qC3Uv0y5G2yO8SEoO3yNP/tg/BOli02niHb53vEOUWUb9bly6thnfMoXoiV/osoGxgF20R58RlvkAmezyyl1Sv542TfS2DpiwVnmjjjkCyXeSUcKookYLQ==';
const DELIVERY = '2c1d4e0f-6b7a-4d21-9a1e-3f0c5b8d7e62';

const request = (signature: string | undefined, body = EXAMPLE_BODY, delivery = DELIVERY) =>
  jsonRequest(body, {
    headers: {
      ...(delivery === '' ? {} : { 'x-delivery-id': delivery }),
      ...(signature === undefined ? {} : { 'x-signature-sha256': signature }),
    },
  });

describe('wise preset', () => {
  const sandbox = wise({ environment: 'sandbox' });

  it('describes itself and keys on X-Delivery-Id', () => {
    expect(sandbox).toMatchObject({ provider: 'wise', needsRawBody: true, retentionDays: 21 });
    expect(sandbox.key(request(undefined))).toBe(DELIVERY);
    expect(sandbox.key(request(undefined, EXAMPLE_BODY, ''))).toBeUndefined();
  });

  it("accepts Wise's documented example vector with the sandbox key", () => {
    expect(sandbox.verify?.(request(EXAMPLE_SIGNATURE))).toBe(true);
  });

  it('refuses the vector tampered, under the production key, or without its signature', () => {
    expect(
      sandbox.verify?.(request(EXAMPLE_SIGNATURE, EXAMPLE_BODY.replace('49983981', '49983982'))),
    ).toBe(false);
    expect(sandbox.verify?.(request(EXAMPLE_SIGNATURE, `${EXAMPLE_BODY} `))).toBe(false);
    expect(wise().verify?.(request(EXAMPLE_SIGNATURE))).toBe(false);
    expect(sandbox.verify?.(request(undefined))).toBe(false);
    expect(sandbox.verify?.(request('not base64!'))).toBe(false);
    const flipped = Buffer.from(EXAMPLE_SIGNATURE, 'base64');
    flipped[0] = flipped[0]! ^ 1;
    expect(sandbox.verify?.(request(flipped.toString('base64')))).toBe(false);
  });

  it('ships the published keys as PEM constants', () => {
    expect(WISE_PRODUCTION_PUBLIC_KEY).toContain(
      'MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAvO8vXV',
    );
    expect(WISE_SANDBOX_PUBLIC_KEY).toContain(
      'MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAwpb91cEY',
    );
  });

  it('verifies with a publicKey of your own, PEM or KeyObject', () => {
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const body = '{"event_type":"balances#credit","sent_at":"2026-12-01T10:00:00Z"}';
    const signature = sign('sha256', Buffer.from(body), privateKey).toString('base64');
    const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
    expect(wise({ publicKey: pem }).verify?.(request(signature, body))).toBe(true);
    expect(wise({ publicKey }).verify?.(request(signature, body))).toBe(true);
    expect(wise().verify?.(request(signature, body))).toBe(false);
  });

  it('fingerprints the body without sent_at, so a restamped resend is a replay', () => {
    const resent = EXAMPLE_BODY.replace(
      '"sent_at":"2021-08-23T10:12:50Z"',
      '"sent_at":"2021-08-23T10:13:50Z"',
    );
    const changed = EXAMPLE_BODY.replace('incoming_payment_waiting', 'processing');
    const first = sandbox.fingerprint?.(request(undefined));
    expect(first).toMatch(/^[0-9a-f]{64}$/);
    expect(sandbox.fingerprint?.(request(undefined, resent))).toBe(first);
    expect(sandbox.fingerprint?.(request(undefined, changed))).not.toBe(first);
  });

  it('throws a ConfigError naming the option', () => {
    expect(() => wise({ environment: 'live' as 'production' })).toThrow(ConfigError);
    expect(() => wise({ publicKey: 'not a key' })).toThrow(/publicKey/);
    const { publicKey } = generateKeyPairSync('ed25519');
    expect(() => wise({ publicKey })).toThrow(/RSA/);
  });
});
