/**
 * PayPal's `PAYPAL-CERT-URL` is read before anything is verified, so an unsigned POST naming a URL
 * on PayPal's hosts used to make one outbound fetch per request (a failed fetch was not
 * remembered, and every distinct path was a new URL), and distinct URLs pushed the good
 * certificates out of the 16-entry cache. Now: a failure is remembered for a minute, at most 10
 * certificate fetches start per minute and 2 run at once, a URL with a query or fragment is
 * refused unfetched, and a certificate enters the cache of good ones only once it verified a
 * delivery's signature, so no unsigned request can push one out. Counted with an injected fetch.
 */
import { sign } from 'node:crypto';
import { paypal } from '../../src';
import { crc32 } from '../../src/crc32';
import { SIGNER, SIGNER_KEY } from '../fixtures/paypal-certificates';
import { jsonRequest } from '../helpers';

const WEBHOOK_ID = '8PT597110X687430LKGECATA';
const BODY = JSON.stringify({ id: 'WH-2WR32451HC0233532-67976317FL4543714', event_type: 'X' });
const CERTS = 'https://api.paypal.com/v1/notifications/certs/';
const GOOD_URL = `${CERTS}CERT-360caa42-fca2a594-good`;
const MINUTE = 60_000;
/** The documented bounds: fetches started per minute, fetches running at once. */
const PER_MINUTE = 10;
const AT_ONCE = 2;

/** A delivery naming `certUrl`, signed by PayPal's key (`genuine`) or by nobody. */
function delivery(certUrl: string, genuine: boolean) {
  const id = '69cd13f0-d67a-11e5-baa3-778b53f4ae55';
  const time = '2026-12-06T10:00:01Z';
  const signed = `${id}|${time}|${WEBHOOK_ID}|${crc32(Buffer.from(BODY))}`;
  const signature = genuine
    ? sign('sha256', Buffer.from(signed), SIGNER_KEY).toString('base64')
    : Buffer.alloc(256, 7).toString('base64');
  return jsonRequest(BODY, {
    headers: {
      'paypal-transmission-id': id,
      'paypal-transmission-time': time,
      'paypal-transmission-sig': signature,
      'paypal-cert-url': certUrl,
      'paypal-auth-algo': 'SHA256withRSA',
    },
  });
}

/** A preset with a counting fetch (`serve` answers each URL) and a clock the test moves. */
function setup(serve: (url: string) => Promise<string>) {
  let now = Date.parse('2030-01-01T00:00:00Z');
  const fetched: string[] = [];
  const preset = paypal({
    webhookId: WEBHOOK_ID,
    clock: () => now,
    fetchCertificate: (url) => {
      fetched.push(url);
      return serve(url);
    },
  });
  const verify = (certUrl: string, genuine = false) =>
    Promise.resolve(preset.verify?.(delivery(certUrl, genuine)));
  return {
    fetched,
    verify,
    later: (ms: number) => {
      now += ms;
    },
  };
}

const notFound = () => Promise.reject(new Error('404 Not Found'));

describe('paypal certificate fetches an unsigned request can cause', () => {
  it('remembers a URL that failed: repeating it makes no new fetch', async () => {
    const { fetched, verify, later } = setup(notFound);
    for (let i = 0; i < 20; i++) expect(await verify(`${CERTS}CERT-missing`)).toBe(false);
    expect(fetched).toHaveLength(1);
    // Remembered for a minute: PayPal's next retry after that fetches again.
    later(MINUTE + 1);
    expect(await verify(`${CERTS}CERT-missing`)).toBe(false);
    expect(fetched).toHaveLength(2);
  });

  it(`starts at most ${PER_MINUTE} fetches a minute, however many distinct URLs are named`, async () => {
    const { fetched, verify, later } = setup(notFound);
    for (let i = 0; i < 50; i++) expect(await verify(`${CERTS}CERT-${i}`)).toBe(false);
    expect(fetched).toHaveLength(PER_MINUTE);
    later(MINUTE);
    for (let i = 50; i < 100; i++) expect(await verify(`${CERTS}CERT-${i}`)).toBe(false);
    expect(fetched).toHaveLength(2 * PER_MINUTE);
  });

  it(`runs at most ${AT_ONCE} fetches at once`, async () => {
    let release!: () => void;
    const held = new Promise<string>((_, reject) => {
      release = () => reject(new Error('released'));
    });
    const { fetched, verify } = setup(() => held);
    const pending = Array.from({ length: 30 }, (_, i) => verify(`${CERTS}CERT-slow-${i}`));
    const settled = await Promise.all(pending.slice(AT_ONCE));
    expect(settled.every((ok) => ok === false)).toBe(true);
    expect(fetched).toHaveLength(AT_ONCE);
    release();
    expect(await Promise.all(pending.slice(0, AT_ONCE))).toEqual([false, false]);
  });

  it('refuses a certificate URL with a query or a fragment without fetching it', async () => {
    const { fetched, verify } = setup(async () => SIGNER);
    for (const url of [`${GOOD_URL}?v=1`, `${GOOD_URL}?`, `${GOOD_URL}#x`])
      expect(await verify(url, true)).toBe(false);
    expect(fetched).toEqual([]);
  });

  it('never pushes a certificate that verified a delivery out for unsigned requests', async () => {
    // The worst case: every URL named serves a certificate that passes every check.
    const { fetched, verify, later } = setup(async () => SIGNER);
    expect(await verify(GOOD_URL, true)).toBe(true);
    for (let minute = 0; minute < 5; minute++) {
      for (let i = 0; i < 20; i++) expect(await verify(`${CERTS}CERT-${minute}-${i}`)).toBe(false);
      later(MINUTE);
    }
    expect(fetched.length).toBeGreaterThan(16);
    expect(await verify(GOOD_URL, true)).toBe(true);
    expect(fetched.filter((url) => url === GOOD_URL)).toHaveLength(1);
  });

  it('refuses a genuine delivery at a new URL while the budget is spent (PayPal retries), and accepts it after', async () => {
    const { fetched, verify, later } = setup(async () => SIGNER);
    for (let i = 0; i < 20; i++) await verify(`${CERTS}CERT-noise-${i}`);
    const before = fetched.length;
    const rotated = `${CERTS}CERT-rotated`;
    expect(await verify(rotated, true)).toBe(false);
    expect(fetched).toHaveLength(before);
    later(MINUTE);
    expect(await verify(rotated, true)).toBe(true);
  });
});
