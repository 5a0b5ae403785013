/** @module The per-request value (`req.idempotency`, `request.idempotency`, `ctx.state.idempotency`): set only for a claimed run, `undefined` (never `null`) otherwise. */
import { inFlight } from './expect';
import type { AdapterCase } from '../case';
import { jsonAnswer } from '../harness';

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
];
