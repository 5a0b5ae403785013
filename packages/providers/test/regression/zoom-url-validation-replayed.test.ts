/**
 * Zoom's `endpoint.url_validation` replayed later, after its receipts' retention: the answer is
 * computed afresh every time (no receipt is ever written for a validation, so none can go stale
 * or be purged), a captured validation re-sent a week later gets the same answer and nothing else,
 * and a signed validation the preset cannot answer (no usable `plainToken`) is refused 400: never
 * a delivery that would be stored and handed to the handler.
 */
import { createHmac } from 'node:crypto';
import { InMemoryStore } from '@webhook-idempotency/core';
import { createEngine } from '@webhook-idempotency/core/adapter';
import { zoom } from '../../src';
import { jsonRequest } from '../helpers';

const SECRET = 'zoom secret token of ours';
const DAY = 24 * 60 * 60 * 1000;
const signed = (body: string, stamp = '1765000000') =>
  jsonRequest(body, {
    headers: {
      'x-zm-request-timestamp': stamp,
      'x-zm-signature': `v0=${createHmac('sha256', SECRET).update(`v0:${stamp}:${body}`).digest('hex')}`,
    },
  });
const validation = (payload: unknown) =>
  JSON.stringify({ event: 'endpoint.url_validation', event_ts: 1765000000999, payload });

function setup() {
  let now = Date.parse('2026-12-06T10:00:00Z');
  const events: string[] = [];
  const preset = zoom({ secretToken: SECRET });
  const engine = createEngine({
    store: new InMemoryStore(),
    preset,
    clock: () => now,
    onEvent: (event) => void events.push(event.type),
  });
  return {
    engine,
    preset,
    events,
    later: (ms: number) => {
      now += ms;
    },
  };
}

describe('zoom endpoint.url_validation over time', () => {
  it('is answered afresh each time, before and after the retention, and never stored', async () => {
    const { engine, preset, events, later } = setup();
    const captured = signed(validation({ plainToken: 'qgg8vlvZRS6UYooatFL8Aw' }));
    const expected = {
      plainToken: 'qgg8vlvZRS6UYooatFL8Aw',
      encryptedToken: createHmac('sha256', SECRET).update('qgg8vlvZRS6UYooatFL8Aw').digest('hex'),
    };
    for (const wait of [0, 1000, (preset.retentionDays + 1) * DAY, 72 * 60 * 60 * 1000]) {
      later(wait);
      const decision = await engine.begin(captured);
      expect(decision).toMatchObject({ action: 'respond', replayed: false });
      if (decision.action !== 'respond') throw new Error('unreachable');
      expect(decision.response.status).toBe(200);
      expect(JSON.parse(decision.response.body.toString())).toEqual(expected);
    }
    await engine.config.guard.purge({ provider: 'zoom', retentionDays: preset.retentionDays });
    expect(await engine.begin(captured)).toMatchObject({ action: 'respond', replayed: false });
    // No claim, no replay, no completion: the validation never touched the store.
    expect(events).toEqual([]);
  });

  it.each([
    ['no plainToken', {}],
    ['a number', { plainToken: 42 }],
    ['an empty string', { plainToken: '' }],
    ['a token too long to be Zoom’s', { plainToken: 'a'.repeat(257) }],
  ])(
    'a signed validation with %s is refused 400, never run or stored as a delivery',
    async (_label, payload) => {
      const { engine, events } = setup();
      const decision = await engine.begin(signed(validation(payload)));
      expect(decision.action).toBe('respond');
      if (decision.action !== 'respond') throw new Error('unreachable');
      expect(decision.response.status).toBe(400);
      expect(decision.response.headers['x-content-type-options']).toBe('nosniff');
      expect(events).toEqual([]);
    },
  );
});
