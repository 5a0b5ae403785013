/**
 * What the test kit promises beyond each preset's fixture (those are judged in
 * packages/adapter-conformance/test/kit-fixtures.test.ts, beside the HTTP suite's fixtures):
 * documented vectors, what every delivery carries, options, the send helpers, isolation.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as signers from '@webhook-idempotency/providers/testing';

describe('documented vectors', () => {
  it("Slack's request-signing example", () => {
    const body =
      'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c';
    const delivery = signers
      .slack({ signingSecret: '8f742231b10e8888abcd99yyyzzz85a5' })
      .event(body, { at: 1_531_420_618_000 });
    expect(delivery.headers['x-slack-request-timestamp']).toBe('1531420618');
    expect(delivery.headers['x-slack-signature']).toBe(
      'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503',
    );
  });

  it("GitHub's webhook-validation example", () => {
    const delivery = signers
      .github({ secret: "It's a Secret to Everybody" })
      .event('Hello, World!');
    expect(delivery.headers['x-hub-signature-256']).toBe(
      'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17',
    );
  });

  it("Click's formula, the vectors click.test.ts derives by hand", () => {
    const signer = signers.click({ secretKey: 'Xq7dVb2Lk9pR4sT1' });
    const fields = {
      click_trans_id: '2263123456',
      service_id: '23456',
      click_paydoc_id: '3712345678',
      merchant_trans_id: '1042',
      amount: '15000.00',
    };
    const prepare = signer.prepare(fields, { at: Date.UTC(2024, 4, 14, 10, 31, 5) });
    const complete = signer.complete(
      { ...fields, merchant_prepare_id: '77' },
      { at: Date.UTC(2024, 4, 14, 10, 31, 40) },
    );
    const sign = (d: signers.Delivery) => new URLSearchParams(d.body.toString()).get('sign_string');
    expect(new URLSearchParams(prepare.body.toString()).get('sign_time')).toBe(
      '2024-05-14 10:31:05',
    );
    expect(sign(prepare)).toBe('ce278c7435bd74a056229c6746d1df7d');
    expect(sign(complete)).toBe('3827664d47c371f05983f01670c89403');
  });
});

describe('what every delivery carries', () => {
  const signer = signers.stripe({
    secret: 'whsec_kit',
    url: 'https://shop.example/hooks/stripe?tenant=a',
    clock: () => 1_700_000_000_000,
  });

  it('method, the URL and its path, lower-case headers, the exact bytes and the signing time', () => {
    const delivery = signer.event('{"id": "evt_1",  "object":"event"}', {
      headers: { 'X-Extra': 'yes' },
    });
    expect(delivery).toMatchObject({
      method: 'POST',
      url: 'https://shop.example/hooks/stripe?tenant=a',
      path: '/hooks/stripe?tenant=a',
      at: 1_700_000_000_000,
      headers: { 'content-type': 'application/json', 'x-extra': 'yes' },
    });
    expect(delivery.body.toString()).toBe('{"id": "evt_1",  "object":"event"}');
    expect(delivery.headers['stripe-signature']).toMatch(/^t=1700000000,v1=/);
    expect(Object.isFrozen(delivery)).toBe(true);
  });

  it('a retry is signed at the signer clock or at `at`; the forged copy keeps the bytes', () => {
    const delivery = signer.event({ id: 'evt_2' }, { at: new Date(1_600_000_000_000) });
    expect(delivery.retry().headers['stripe-signature']).toMatch(/^t=1700000000,/);
    expect(delivery.retry({ at: 1_650_000_000_000 }).at).toBe(1_650_000_000_000);
    expect(delivery.forged().body.equals(delivery.body)).toBe(true);
    expect(delivery.forged().headers['stripe-signature']).not.toBe(
      delivery.headers['stripe-signature'],
    );
  });
});

describe('options', () => {
  it.each([
    ['stripe', () => signers.stripe({} as never), 'secret'],
    ['github', () => signers.github({ secret: '' }), 'secret'],
    ['square', () => signers.square({ signatureKey: 'k' } as never), 'notificationUrl'],
    ['adyen', () => signers.adyen({ hmacKey: 'not hex' }), 'hmacKey'],
    ['twitch', () => signers.twitch({ secret: 'short' }), 'secret'],
    ['discord', () => signers.discord({ privateKey: 'not a key' }), 'privateKey'],
    ['paypal', () => signers.paypal({ webhookId: 'W' } as never), 'privateKey'],
    ['url', () => signers.stripe({ secret: 's', url: '/relative' }), 'url'],
    ['clock', () => signers.stripe({ secret: 's', clock: 5 as never }), 'clock'],
    [
      'meta challenge without verifyToken',
      () => signers.meta({ appSecret: 's' }).challenge(),
      'verifyToken',
    ],
  ])('%s: a missing or wrong option throws a ConfigError naming it', (_name, make, option) => {
    expect(make).toThrow(expect.objectContaining({ name: 'ConfigError', option }));
  });
});

describe('send helpers without a framework', () => {
  it('toRequest makes a fetch Request with the method, headers and exact bytes, at the delivery URL or another origin', async () => {
    const delivery = signers.github({ secret: 's' }).event('{"a": 1}');
    const request = signers.toRequest(delivery, 'http://127.0.0.1:3000');
    expect(request.url).toBe('http://127.0.0.1:3000/webhooks/github');
    expect(request.headers.get('x-hub-signature-256')).toBe(
      delivery.headers['x-hub-signature-256'],
    );
    expect(await request.text()).toBe('{"a": 1}');
    const challenge = signers.braintree({ publicKey: 'p', privateKey: 'k' }).challenge();
    expect(signers.toRequest(challenge)).toMatchObject({ method: 'GET', url: challenge.url });
  });

  it("injectOptions is what Fastify's inject takes", () => {
    const delivery = signers.paddle({ secret: 's' }).event({ event_id: 'e' });
    expect(signers.injectOptions(delivery)).toEqual({
      method: 'POST',
      url: '/webhooks/paddle',
      headers: { ...delivery.headers },
      payload: delivery.body,
    });
  });
});

describe("the kit's isolation", () => {
  const dir = join(__dirname, '..', '..', 'src', 'testing');
  it.each(readdirSync(dir))(
    "%s imports only node:crypto, core's ConfigError and the kit: never a preset's verify code (a preset's types, which carry no code, may be named)",
    (file) => {
      const source = readFileSync(join(dir, file), 'utf8')
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .replace(/^import type \{[^}]*\} from '\.\.\/[a-z-]+';$/gm, '');
      const imports = [...source.matchAll(/from '([^']+)'/g)].map((match) => match[1]!);
      expect(
        imports.filter(
          (from) => !/^(node:crypto|@webhook-idempotency\/core|\.\/[a-z-]+)$/.test(from),
        ),
      ).toEqual([]);
    },
  );
});
