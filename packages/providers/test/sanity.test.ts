/**
 * The Sanity preset, judged by `@sanity/webhook`, Sanity's own toolkit: its
 * `encodeSignatureHeader` signs what the preset must accept, and its `isValidSignature` agrees
 * with the preset on genuine and altered requests, and judges the test kit's signer (the toolkit
 * is small, and checks no time, so one file serves both).
 */
import { encodeSignatureHeader, isValidSignature } from '@sanity/webhook';
import * as signers from '@webhook-idempotency/providers/testing';
import { sanity } from '../src';
import { jsonRequest } from './helpers';
import { describeStamped } from './stamped-cases';

const SECRET = 'sanity-webhook-secret';
const BODY = JSON.stringify({ _id: 'movie_123', _type: 'movie', title: 'Alien' });
const IDS = { 'sanity-transaction-id': 'tx_9X2kLm4p', 'sanity-document-id': 'movie_123' };

describe('sanity preset', () => {
  describeStamped({
    build: (options) => sanity(options as never),
    option: 'secret',
    secret: SECRET,
    tolerance: 300,
    body: BODY,
    key: 'tx_9X2kLm4p:movie_123',
    headers: IDS,
    sign: async (at, body, secret) => ({
      'sanity-webhook-signature': await encodeSignatureHeader(body, at, secret),
    }),
  });

  it('agrees with the toolkit’s isValidSignature on a genuine and an altered request', async () => {
    const preset = sanity({ secret: SECRET });
    const signature = await encodeSignatureHeader(BODY, Date.now(), SECRET);
    expect(signature).toMatch(/^t=\d{13},v1=[\w-]{43}$/);
    const headers = { ...IDS, 'sanity-webhook-signature': signature };
    const altered = BODY.replace('Alien', 'Aliens');
    expect([
      await isValidSignature(BODY, signature, SECRET),
      preset.verify?.(jsonRequest(BODY, { headers })),
      await isValidSignature(altered, signature, SECRET),
      preset.verify?.(jsonRequest(altered, { headers })),
    ]).toEqual([true, true, false, false]);
  });

  it('keys on idempotency-key without the transaction headers, and names no event', () => {
    const preset = sanity({ secret: SECRET });
    expect(preset.key(jsonRequest(BODY, { headers: { 'idempotency-key': 'idem-1' } }))).toBe(
      'idem-1',
    );
    expect(preset.key(jsonRequest(BODY, { headers: { 'sanity-document-id': 'd' } }))).toBe(
      undefined,
    );
    expect(preset.eventType(jsonRequest(BODY, { headers: IDS }))).toBeUndefined();
  });

  it('signs test-kit deliveries the toolkit accepts, and forged ones it refuses', async () => {
    const delivery = signers.sanity({ secret: SECRET }).event(JSON.parse(BODY));
    const judge = (d: signers.Delivery) =>
      isValidSignature(d.body.toString('utf8'), d.headers['sanity-webhook-signature']!, SECRET);
    expect(await judge(delivery)).toBe(true);
    expect(await judge(delivery.retry())).toBe(true);
    expect(await judge(delivery.forged())).toBe(false);
    expect(delivery.retry().headers['sanity-transaction-id']).toBe(
      delivery.headers['sanity-transaction-id'],
    );
  });
});
