/** @module The per-request value (`req.idempotency`, `request.idempotency`, `ctx.state.idempotency`): set only for a claimed run, `undefined` (never `null`) otherwise. */
import { inFlight } from './expect';
import type { AdapterCase } from '../case';
import { jsonAnswer, PROVIDER } from '../harness';

/** An RFC 9562 UUID of version 8, lowercase: the shape of every effect key. */
const EFFECT_KEY = /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

export const requestValueCases: AdapterCase[] = [
  {
    group: 'per-request value',
    name: 'a pass-through request carries undefined, in the handler and after the answer',
    async run(h) {
      const inHandler: unknown[] = [];
      await h.start({ onMissingKey: 'passthrough' }, (call, n) => {
        inHandler.push(call.idempotency);
        return jsonAnswer(call, n);
      });
      expect((await h.post(undefined)).status).toBe(200);
      const [after] = await h.observed(1);
      expect(inHandler).toHaveLength(1);
      expect(inHandler[0]).toBeUndefined();
      expect(after!.idempotency).toBeUndefined();
    },
  },
  {
    group: 'per-request value',
    name: 'duplicates (409 during the run, replay after it) carry undefined; the claimed run carries its value',
    async run(h) {
      const running = await inFlight(h, 'v1');
      try {
        expect((await h.post('v1')).status).toBe(409);
        expect((await h.observed(1))[0]!.idempotency).toBeUndefined();
      } finally {
        running.letAnswer(); // a failed check must not leave the run (and the app's close) waiting
      }
      expect((await running.first).status).toBe(200);
      expect((await h.observed(2))[1]!.idempotency).toMatchObject({ attempts: 1, isRetry: false });
      const replay = await h.post('v1');
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect((await h.observed(3))[2]!.idempotency).toBeUndefined();
      expect(h.calls()).toBe(1);
    },
  },
  {
    group: 'per-request value',
    name: "its effectKey reaches the handler and is the same on the provider's retry after a failed run",
    async run(h) {
      const seen: string[] = [];
      await h.start({}, (call, n) => {
        const idempotency = call.idempotency;
        if (!idempotency) throw new Error('the claimed run carries no idempotency value');
        seen.push(idempotency.effectKey('refund'));
        if (n === 1) throw new Error('the refund call timed out');
        return { kind: 'json', value: { other: idempotency.effectKey('email:receipt') } };
      });
      expect((await h.post('k1')).status).toBe(h.capabilities.errorStatus ?? 500);
      const second = await h.post('k1');
      expect(second.status).toBe(200);
      const { other } = JSON.parse(second.body.toString()) as { other: string };
      expect(seen).toHaveLength(2);
      expect(seen[0]).toMatch(EFFECT_KEY);
      expect(seen[1]).toBe(seen[0]);
      expect(seen[0]).toBe(h.guard.effectKey({ provider: PROVIDER, externalId: 'k1' }, 'refund'));
      expect(other).toMatch(EFFECT_KEY);
      expect(other).not.toBe(seen[0]);
    },
  },
];
