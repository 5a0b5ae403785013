import { sign } from 'node:crypto';
import * as zlib from 'node:zlib';
import { ConfigError } from '@webhook-idempotency/core';
import { paypal, type PayPalOptions, type PayPalSettings } from '../src';
import { crc32 } from '../src/crc32';
import {
  FORGED_SIGNER,
  FORGER_KEY,
  INTERMEDIATE_CA,
  LOOK_ALIKE,
  LOOK_ALIKE_KEY,
  ROOT_CA,
  SIGNER,
  SIGNER_KEY,
} from './fixtures/paypal-certificates';
import { jsonRequest } from './helpers';

// No PayPal verifier runs offline (PayPal's REST SDKs that did are retired, and the
// verify-webhook-signature API is a network call), so the judge is PayPal's documented formula
// ("Integrate webhooks", developer.paypal.com/api/rest/webhooks/rest; the same string the
// PayPal Java SDK 1.14 `Event.validateReceivedEvent` builds): RSA-SHA256 over
// `transmissionId|transmissionTime|webhookId|crc32`, the CRC-32 of the raw body in decimal, with
// the key of the certificate at PAYPAL-CERT-URL. The certificates are ours (fixtures), served by
// an injected fetch.

const WEBHOOK_ID = '8PT597110X687430LKGECATA';
const EVENT_ID = 'WH-2WR32451HC0233532-67976317FL4543714';
const BODY = JSON.stringify({
  id: EVENT_ID,
  event_version: '1.0',
  create_time: '2026-12-01T10:00:00.000Z',
  resource_type: 'capture',
  event_type: 'PAYMENT.CAPTURE.COMPLETED',
  resource: { id: '42311647XV020574X', amount: { currency_code: 'USD', value: '10.00' } },
});
const CERT_URL =
  'https://api.sandbox.paypal.com/v1/notifications/certs/CERT-360caa42-fca2a594-test';
const TRANSMISSION_ID = '69cd13f0-d67a-11e5-baa3-778b53f4ae55';
const TRANSMISSION_TIME = '2026-12-01T10:00:01Z';
/** Within every fixture's validity. */
const NOW = Date.parse('2030-01-01T00:00:00Z');

interface Delivery {
  body?: string;
  key?: string;
  webhookId?: string;
  transmissionId?: string;
  transmissionTime?: string;
  certUrl?: string;
  algorithm?: string;
}

/** Signs as PayPal documents it. */
function delivery(d: Delivery = {}) {
  const body = d.body ?? BODY;
  const id = d.transmissionId ?? TRANSMISSION_ID;
  const time = d.transmissionTime ?? TRANSMISSION_TIME;
  const message = `${id}|${time}|${d.webhookId ?? WEBHOOK_ID}|${crc32(Buffer.from(body))}`;
  return {
    body,
    headers: {
      'paypal-transmission-id': id,
      'paypal-transmission-time': time,
      'paypal-transmission-sig': sign('sha256', Buffer.from(message), d.key ?? SIGNER_KEY).toString(
        'base64',
      ),
      'paypal-cert-url': d.certUrl ?? CERT_URL,
      'paypal-auth-algo': d.algorithm ?? 'SHA256withRSA',
    },
  };
}

const request = (d: ReturnType<typeof delivery>) => jsonRequest(d.body, { headers: d.headers });

/** A fetch that serves `pem` and counts its calls. */
function served(pem: string) {
  const calls: string[] = [];
  const fetchCertificate = async (url: string) => {
    calls.push(url);
    return pem;
  };
  return { calls, fetchCertificate };
}

const preset = (pem: string, options: Partial<PayPalSettings> = {}) => {
  const source = served(pem);
  return {
    ...source,
    preset: paypal({
      webhookId: WEBHOOK_ID,
      fetchCertificate: source.fetchCertificate,
      clock: () => NOW,
      ...options,
    }),
  };
};

const CHAIN = `${SIGNER}${INTERMEDIATE_CA}`;

describe('paypal preset', () => {
  it('computes the CRC-32 zlib computes (the checksum of the signed string)', () => {
    const body = Buffer.from(BODY);
    expect(crc32(body)).toBe(zlib.crc32(body));
    expect(crc32(Buffer.alloc(0))).toBe(0);
    expect(crc32(Buffer.from('123456789'))).toBe(0xcbf43926);
  });

  it('describes itself and keys on the event id in the body', () => {
    const { preset: p } = preset(SIGNER);
    expect(p).toMatchObject({ provider: 'paypal', needsRawBody: true, retentionDays: 30 });
    expect(p.key(request(delivery()))).toBe(EVENT_ID);
    expect(p.key(jsonRequest({ event_type: 'X' }))).toBeUndefined();
  });

  it('accepts a delivery signed with the served certificate, fetching it once', async () => {
    const { preset: p, calls } = preset(SIGNER);
    await expect(p.verify?.(request(delivery()))).resolves.toBe(true);
    await expect(p.verify?.(request(delivery()))).resolves.toBe(true);
    expect(calls).toEqual([CERT_URL]);
  });

  it('shares one fetch between concurrent deliveries', async () => {
    const { preset: p, calls } = preset(SIGNER);
    const results = await Promise.all([1, 2, 3].map(() => p.verify?.(request(delivery()))));
    expect(results).toEqual([true, true, true]);
    expect(calls).toHaveLength(1);
  });

  it('refuses a tampered body, transmission id, transmission time or webhook id', async () => {
    const { preset: p } = preset(SIGNER);
    const good = delivery();
    const cases = [
      { ...good, body: good.body.replace('10.00', '1000.00') },
      { ...good, headers: { ...good.headers, 'paypal-transmission-id': 'another-id' } },
      { ...good, headers: { ...good.headers, 'paypal-transmission-time': '2026-12-01T10:00:02Z' } },
      delivery({ webhookId: 'ANOTHERWEBHOOK' }),
    ];
    for (const forged of cases) await expect(p.verify?.(request(forged))).resolves.toBe(false);
  });

  it('refuses a certificate URL off PayPal’s hosts without fetching it', async () => {
    const { preset: p, calls } = preset(SIGNER);
    const urls = [
      'https://evil.example.com/v1/notifications/certs/CERT-1',
      'https://api.paypal.com.evil.example.com/v1/notifications/certs/CERT-1',
      'https://api.paypal.com@evil.example.com/v1/notifications/certs/CERT-1',
      'http://api.paypal.com/v1/notifications/certs/CERT-1',
      'https://api.paypal.com:8443/v1/notifications/certs/CERT-1',
      'https://api.paypal.com/v1/oauth2/token',
      'https://api.paypal.com/v1/notifications/certs/',
      'not a url',
    ];
    for (const certUrl of urls)
      await expect(p.verify?.(request(delivery({ certUrl })))).resolves.toBe(false);
    expect(calls).toEqual([]);
  });

  it('accepts the live and api-m hosts', async () => {
    for (const host of ['api.paypal.com', 'api-m.paypal.com', 'api-m.sandbox.paypal.com']) {
      const { preset: p } = preset(SIGNER);
      const certUrl = `https://${host}/v1/notifications/certs/CERT-360caa42-fca2a594-live`;
      await expect(p.verify?.(request(delivery({ certUrl })))).resolves.toBe(true);
    }
  });

  it('refuses a signature by another key, another algorithm header, or a garbled signature', async () => {
    const { preset: p } = preset(SIGNER);
    await expect(p.verify?.(request(delivery({ key: FORGER_KEY })))).resolves.toBe(false);
    await expect(p.verify?.(request(delivery({ algorithm: 'SHA1withRSA' })))).resolves.toBe(false);
    const garbled = delivery();
    garbled.headers['paypal-transmission-sig'] = '%%%';
    await expect(p.verify?.(request(garbled))).resolves.toBe(false);
    const piped = delivery({ transmissionId: 'a|b' });
    await expect(p.verify?.(request(piped))).resolves.toBe(false);
  });

  it('refuses a certificate that does not name PayPal, even when it signed', async () => {
    const { preset: p } = preset(LOOK_ALIKE);
    await expect(p.verify?.(request(delivery({ key: LOOK_ALIKE_KEY })))).resolves.toBe(false);
  });

  it('refuses a certificate outside its validity, by the injected clock', async () => {
    const { preset: early } = preset(SIGNER, { clock: () => Date.parse('2020-01-01T00:00:00Z') });
    await expect(early.verify?.(request(delivery()))).resolves.toBe(false);
    const { preset: late } = preset(SIGNER, { clock: () => Date.parse('2200-01-01T00:00:00Z') });
    await expect(late.verify?.(request(delivery()))).resolves.toBe(false);
  });

  it('checks the served chain link by link, and against trustedCertificates when given', async () => {
    // Signer then its issuer: linked.
    const linked = preset(CHAIN, { trustedCertificates: [ROOT_CA] });
    await expect(linked.preset.verify?.(request(delivery()))).resolves.toBe(true);
    // The root itself as the anchor of a chain that includes it.
    const toRoot = preset(`${CHAIN}${ROOT_CA}`, { trustedCertificates: [ROOT_CA] });
    await expect(toRoot.preset.verify?.(request(delivery()))).resolves.toBe(true);
    // A chain whose second certificate did not issue the first.
    const broken = preset(`${SIGNER}${ROOT_CA}`);
    await expect(broken.preset.verify?.(request(delivery()))).resolves.toBe(false);
    // The signer alone cannot reach the root without its intermediate.
    const unanchored = preset(SIGNER, { trustedCertificates: [ROOT_CA] });
    await expect(unanchored.preset.verify?.(request(delivery()))).resolves.toBe(false);
    // PayPal's subject, issued by a CA nobody trusts.
    const forged = preset(FORGED_SIGNER, { trustedCertificates: [ROOT_CA] });
    await expect(forged.preset.verify?.(request(delivery({ key: FORGER_KEY })))).resolves.toBe(
      false,
    );
  });

  it('refuses (401, PayPal retries) when the certificate cannot be had, and fetches again a minute later', async () => {
    let fail = true;
    let now = NOW;
    const calls: string[] = [];
    const p = paypal({
      webhookId: WEBHOOK_ID,
      clock: () => now,
      fetchCertificate: async (url) => {
        calls.push(url);
        if (fail) throw new Error('connect ECONNREFUSED');
        return SIGNER;
      },
    });
    await expect(p.verify?.(request(delivery()))).resolves.toBe(false);
    fail = false;
    // The failure is remembered for a minute: no fetch for the deliveries in between.
    await expect(p.verify?.(request(delivery()))).resolves.toBe(false);
    expect(calls).toHaveLength(1);
    now += 60_001;
    await expect(p.verify?.(request(delivery()))).resolves.toBe(true);
    expect(calls).toHaveLength(2);
    // Not a certificate at all.
    const junk = preset('<html>maintenance</html>');
    await expect(junk.preset.verify?.(request(delivery()))).resolves.toBe(false);
  });

  it('waits for a certificate at most certificateTimeoutMs, and aborts the fetch', async () => {
    let aborted = false;
    const p = paypal({
      webhookId: WEBHOOK_ID,
      clock: () => NOW,
      certificateTimeoutMs: 20,
      fetchCertificate: (_url, signal) =>
        new Promise<string>(() => {
          signal.addEventListener('abort', () => {
            aborted = true;
          });
        }),
    });
    await expect(p.verify?.(request(delivery()))).resolves.toBe(false);
    expect(aborted).toBe(true);
  });

  it('remembers at most 16 proven certificate URLs, the least recently used going first', async () => {
    let now = NOW;
    const { preset: p, calls } = preset(SIGNER, { clock: () => now });
    const url = (n: number) => `${CERT_URL}-${n}`;
    for (let n = 0; n <= 16; n++) {
      // Within the fetch budget (10 a minute).
      now += 6_000;
      await expect(p.verify?.(request(delivery({ certUrl: url(n) })))).resolves.toBe(true);
    }
    expect(calls).toHaveLength(17);
    await expect(p.verify?.(request(delivery({ certUrl: url(16) })))).resolves.toBe(true);
    expect(calls).toHaveLength(17);
    now += 6_000;
    await expect(p.verify?.(request(delivery({ certUrl: url(0) })))).resolves.toBe(true);
    expect(calls).toHaveLength(18);
  });

  it('throws a ConfigError naming the option', () => {
    const named = (options: unknown) => {
      try {
        paypal(options as PayPalOptions);
      } catch (error) {
        return error instanceof ConfigError ? error.option : 'not a ConfigError';
      }
      return 'nothing thrown';
    };
    expect(named({})).toBe('webhookId');
    expect(named({ webhookId: 'W', fetchCertificate: 'x' })).toBe('fetchCertificate');
    expect(named({ webhookId: 'W', certificateHosts: [] })).toBe('certificateHosts');
    expect(named({ webhookId: 'W', trustedCertificates: ['not pem'] })).toBe('trustedCertificates');
    expect(named({ webhookId: 'W', trustedCertificates: [SIGNER] })).toBe('trustedCertificates');
    expect(named({ webhookId: 'W', certificateTimeoutMs: 0 })).toBe('certificateTimeoutMs');
    expect(named({ webhookId: 'W', clock: 1 })).toBe('clock');
  });
});
