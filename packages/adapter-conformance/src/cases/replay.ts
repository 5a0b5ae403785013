/** @module The first delivery goes out unchanged, repeats are replays, the guard's own answers are never stored. */
import { expectReplay, inFlight } from './expect';
import type { AdapterCase } from '../case';

const REPLAYED = 'idempotent-replayed';

export const replayCases: AdapterCase[] = [
  {
    group: 'replay',
    name: 'the first delivery gets the handler answer unchanged, without the replay marker',
    async run(h) {
      await h.start();
      const res = await h.post('r1');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(JSON.parse(res.body.toString())).toEqual({ received: 'r1', call: 1 });
      expect(res.headers[REPLAYED]).toBeUndefined();
      expect(await h.receipt('r1')).toMatchObject({ status: 'completed', attempts: 1 });
    },
  },
  {
    group: 'replay',
    name: 'a repeat gets 200, the stored body byte for byte, its content-type and Idempotent-Replayed: true; the handler ran once',
    async run(h) {
      await h.start();
      const first = await h.post('r2');
      for (let i = 0; i < 3; i++) expectReplay(await h.post('r2'), first);
      expect(h.calls()).toBe(1);
    },
  },
  {
    group: 'replay',
    name: 'the stored 2xx status is replayed as it was (201 stays 201)',
    async run(h) {
      await h.start({}, () => ({
        kind: 'json',
        status: 201,
        headers: { location: '/things/1' },
        value: { created: true },
      }));
      const first = await h.post('r3');
      const again = await h.post('r3');
      expect([first.status, again.status]).toEqual([201, 201]);
      expect(again.headers.location).toBe('/things/1');
    },
  },
  {
    group: 'replay',
    name: 'the replay marker header name is an option',
    async run(h) {
      await h.start({ replayedHeader: 'X-Webhook-Replay' });
      await h.post('r4');
      const again = await h.post('r4');
      expect(again.headers['x-webhook-replay']).toBe('true');
      expect(again.headers[REPLAYED]).toBeUndefined();
    },
  },
  {
    group: 'replay',
    name: 'a duplicate during the run gets 409 with Retry-After, which is not stored: the retry after completion is the real replay',
    async run(h) {
      const running = await inFlight(h, 'r5');
      const busy = await h.post('r5');
      expect(busy.status).toBe(409);
      expect(Number(busy.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(JSON.parse(busy.body.toString()).code).toBe('ERR_IDEMPOTENCY_IN_PROGRESS');
      running.letAnswer();
      const done = await running.first;
      expect(done.status).toBe(200);
      expectReplay(await h.post('r5'), done);
      expect(h.calls()).toBe(1);
    },
  },
  {
    group: 'replay',
    name: 'inProgressStatus 503 answers a duplicate during the run with 503 and Retry-After',
    async run(h) {
      const running = await inFlight(h, 'r6', { inProgressStatus: 503 });
      const busy = await h.post('r6');
      expect(busy.status).toBe(503);
      expect(busy.headers['retry-after']).toBeDefined();
      running.letAnswer();
      expect((await running.first).status).toBe(200);
    },
  },
  {
    group: 'replay',
    name: 'the same id with another body gets 422, the handler does not run, and the original is still replayed',
    async run(h) {
      await h.start();
      const first = await h.post('r7');
      const other = await h.post('r7', '{"id":"evt_1","amount":99}');
      expect(other.status).toBe(422);
      expect(JSON.parse(other.body.toString()).code).toBe('ERR_IDEMPOTENCY_FINGERPRINT_MISMATCH');
      expectReplay(await h.post('r7'), first);
      expect(h.calls()).toBe(1);
    },
  },
  {
    group: 'replay',
    name: 'the fingerprint is taken from the raw bytes: the same JSON with other spacing is another payload',
    async run(h) {
      await h.start();
      await h.post('r8');
      expect((await h.post('r8', '{"id":"evt_1","amount":10}')).status).toBe(422);
    },
  },
  {
    group: 'replay',
    name: 'with fingerprint: false another body with the same id is replayed',
    async run(h) {
      await h.start({ fingerprint: false });
      await h.post('r9');
      const again = await h.post('r9', '{"other":true}');
      expect(again.headers[REPLAYED]).toBe('true');
    },
  },
  {
    group: 'replay',
    name: 'provider can be a function of the request: the same id at two providers is two deliveries',
    async run(h) {
      await h.start({ provider: (native) => String(native.headers['x-provider']) });
      const a = await h.post('r10', undefined, { 'x-provider': 'alpha' });
      const b = await h.post('r10', undefined, { 'x-provider': 'beta' });
      expect([a.headers[REPLAYED], b.headers[REPLAYED]]).toEqual([undefined, undefined]);
      expect((await h.post('r10', undefined, { 'x-provider': 'alpha' })).headers[REPLAYED]).toBe(
        'true',
      );
      expect(h.calls()).toBe(2);
    },
  },
];
