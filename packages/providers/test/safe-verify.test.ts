/** The one try/catch around the presets' checks, and the one JSON-object parse the presets share. */
import * as providers from '@webhook-idempotency/providers';
import type { HttpRequest } from '@webhook-idempotency/core';
import { parseJsonObject } from '../src/request-fields';
import { safeVerify } from '../src/safe-verify';
import { makeRequest } from './helpers';

describe('safeVerify', () => {
  const request = makeRequest();

  it('passes the request to the check and answers what it answers', () => {
    const seen: HttpRequest[] = [];
    const accept = (r: HttpRequest) => {
      seen.push(r);
      return true;
    };
    expect(safeVerify(accept)(request)).toBe(true);
    expect(safeVerify(() => false)(request)).toBe(false);
    expect(seen).toEqual([request]);
  });

  it('answers false when the check throws, whatever it throws', () => {
    expect(
      safeVerify(() => {
        throw new TypeError('garbled');
      })(request),
    ).toBe(false);
    expect(
      safeVerify(() => {
        throw 'not even an Error';
      })(request),
    ).toBe(false);
  });

  it('lets only a real true pass', () => {
    const truthy = (() => 'yes') as unknown as (r: HttpRequest) => boolean;
    expect(safeVerify(truthy)(request)).toBe(false);
  });
});

/** Every preset built with options that make its check run as far as reading headers. */
const all = {
  payme: providers.payme({ password: 'cash-desk-key' }),
  click: providers.click({ secretKey: 'secret' }),
  uzum: providers.uzum({ username: 'user', password: 'pass' }),
  stripe: providers.stripe({ secret: 'whsec_x' }),
  github: providers.github({ secret: 'x' }),
  telegram: providers.telegram({ botId: 1, secretToken: 'token' }),
  shopify: providers.shopify({ secret: 'x' }),
  standardWebhooks: providers.standardWebhooks({ secret: 'whsec_c2VjcmV0' }),
  slack: providers.slack({ signingSecret: 'x' }),
  paddle: providers.paddle({ secret: 'x' }),
};

describe.each(Object.entries(all))('the %s preset', (_name, preset) => {
  it('answers false, without throwing, when reading the request throws inside its check', () => {
    let thrown = 0;
    const fail = (): never => {
      thrown++;
      throw new Error('request access failed');
    };
    const headers = new Proxy({}, { get: fail, has: fail }) as HttpRequest['headers'];
    const broken: HttpRequest = {
      method: 'POST',
      url: '/webhook',
      headers,
      rawBody: Buffer.from('{}'),
      body: undefined,
      native: {},
    };
    // Click's check reads form fields rather than headers: a parsed form whose field getter throws.
    const form = Object.defineProperty({}, 'click_trans_id', { get: fail, enumerable: true });
    const brokenForm: HttpRequest = {
      method: 'POST',
      url: '/webhook',
      headers: {},
      rawBody: undefined,
      body: form,
      native: {},
    };
    expect(preset.verify?.(broken)).toBe(false);
    expect(preset.verify?.(brokenForm)).toBe(false);
    expect(thrown).toBeGreaterThan(0);
  });
});

describe('parseJsonObject', () => {
  it('gives the object JSON text holds, and undefined for anything else', () => {
    expect(parseJsonObject('{"a":[1,{"b":null}]}')).toEqual({ a: [1, { b: null }] });
    expect(parseJsonObject(' {} ')).toEqual({});
    for (const text of ['', '{', '[1]', 'null', '"x"', '42', 'true', '{"a":1}x'])
      expect(parseJsonObject(text)).toBeUndefined();
  });
});
