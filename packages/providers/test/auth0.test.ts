import { ConfigError } from '@webhook-idempotency/core';
import * as kit from '@webhook-idempotency/providers/testing';
import { auth0 } from '../src';
import { makeRequest } from './helpers';

// Auth0 signs nothing: a "Custom Webhook" log stream sends its optional Authorization Token as
// the `Authorization` header, in the content format chosen (JSON lines, array or object)
// (auth0.com/docs/customize/log-streams/custom-log-streams). A log is `{ log_id, data }` with the
// tenant log inside `data` (auth0.com/docs/customize/log-streams/event-filters lists the codes).
// No SDK or vector: the test's own token, and the test kit's batches.
const TOKEN = 'Bearer an auth0 stream token';
const log = (id: string, type = 's') => ({
  log_id: id,
  data: { date: '2026-12-01T10:00:00.000Z', type, log_id: id, client_id: 'app', user_id: 'u1' },
});
const LOGS = [log('90020261201100000001'), log('90020261201100000002', 'f')];
const request = (body: string, authorization: string | null = TOKEN) =>
  makeRequest({ rawBody: body, headers: authorization === null ? {} : { authorization } });
const lines = LOGS.map((l) => JSON.stringify(l)).join('\n');

describe('auth0 preset', () => {
  const preset = auth0({ authorization: TOKEN });

  it('describes itself as batched, with 14 days of retention', () => {
    expect(preset).toMatchObject({ provider: 'auth0', needsRawBody: false, retentionDays: 14 });
    expect(preset.key(request(lines))).toBeUndefined();
  });

  it.each([
    ['JSON lines', `${lines}\n`],
    ['a JSON array', JSON.stringify(LOGS)],
    ['a JSON object of logs by position', JSON.stringify({ ...LOGS })],
  ])('keys each log of %s on its log_id, and names it by data.type', (_format, body) => {
    const items = preset.items?.(request(body)) ?? [];
    expect(items.map((item) => item.key)).toEqual(['90020261201100000001', '90020261201100000002']);
    expect(items.map((item) => preset.itemType?.(item.value))).toEqual(['s', 'f']);
  });

  it('keys a single log object, a log with its id only in data, and one with no id on its content', () => {
    const one = preset.items?.(request(JSON.stringify(LOGS[0]))) ?? [];
    expect(one.map((item) => item.key)).toEqual(['90020261201100000001']);
    const inData = { data: { type: 's', log_id: '900-in-data' } };
    expect(preset.items?.(request(JSON.stringify([inData])))?.[0]?.key).toBe('900-in-data');
    const [bare] = preset.items?.(request(JSON.stringify([{ data: { type: 's' } }]))) ?? [];
    expect(bare?.key).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(preset.items?.(request('not json\n{}'))).toBeUndefined();
    expect(preset.items?.(request('{"unrelated":true}'))).toBeUndefined();
  });

  it.each([
    ['the token', TOKEN, true],
    ['another token', 'Bearer another', false],
    ['the token without its scheme', 'an auth0 stream token', false],
    ['no Authorization header', null, false],
  ])('verifies %s', (_label, authorization, accepted) => {
    expect(preset.verify?.(request(lines, authorization))).toBe(accepted);
  });

  it("accepts the test kit's batch in every format and its retry, and refuses its forged copy", () => {
    const signer = kit.auth0({ authorization: TOKEN });
    const asRequest = (d: kit.Delivery) =>
      makeRequest({ url: d.path, headers: d.headers, rawBody: d.body });
    for (const format of ['lines', 'array', 'object'] as const) {
      const delivery = signer.batch(LOGS, { format });
      expect(preset.verify?.(asRequest(delivery))).toBe(true);
      expect(preset.items?.(asRequest(delivery.retry()))?.map((item) => item.key)).toEqual(
        LOGS.map((l) => l.log_id),
      );
      expect(preset.verify?.(asRequest(delivery.forged()))).toBe(false);
    }
  });

  it.each([
    [undefined, 'options'],
    [{}, 'authorization'],
    [{ authorization: '' }, 'authorization'],
  ])('%j throws a ConfigError naming %s', (options, option) => {
    expect(() => auth0(options as never)).toThrow(ConfigError);
    expect(() => auth0(options as never)).toThrow(expect.objectContaining({ option }));
  });
});
