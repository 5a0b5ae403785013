/** @module Issue behaviours 2 and 8: concurrent duplicates, completion before the flush, client disconnects. */
import { request as httpRequest } from 'node:http';
import type { AdapterCase } from '../case';
import { BODY, gate } from '../harness';

const DELIVERIES = 50;

export const deliveryCases: AdapterCase[] = [
  {
    group: 'delivery',
    name: `${DELIVERIES} concurrent identical deliveries run the handler once; every answer is the handler's, a replay or 409 with Retry-After`,
    async run(h) {
      // The handler is held until every other delivery has been answered (or has started the
      // handler itself, which would fail the count): no timing involved.
      const hold = gate();
      let answered = 0;
      const check = () => {
        if (answered + h.calls() >= DELIVERIES) hold.open();
      };
      await h.start({}, async (call, n) => {
        check();
        await hold.promise;
        return { kind: 'json', value: { received: call.headers['x-event-id'], call: n } };
      });
      const responses = await Promise.all(
        Array.from({ length: DELIVERIES }, () =>
          h.post('c1').then((res) => {
            answered++;
            check();
            return res;
          }),
        ),
      );
      expect(h.calls()).toBe(1);
      const handled = responses.filter((res) => res.status === 200);
      for (const res of responses) {
        if (res.status === 409) expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
        else expect(JSON.parse(res.body.toString())).toEqual({ received: 'c1', call: 1 });
      }
      expect(responses.every((res) => res.status === 200 || res.status === 409)).toBe(true);
      expect(handled.filter((res) => res.headers['idempotent-replayed'] === undefined)).toHaveLength(1);
      expect((await h.post('c1')).headers['idempotent-replayed']).toBe('true');
    },
  },
  {
    group: 'delivery',
    name: 'the receipt is completed before the answer is flushed: a duplicate sent right after the first answer is a replay',
    async run(h) {
      await h.start();
      for (let i = 0; i < 5; i++) {
        const id = `c2-${i}`;
        expect((await h.post(id)).headers['idempotent-replayed']).toBeUndefined();
        const again = await h.post(id);
        expect(again.status).toBe(200);
        expect(again.headers['idempotent-replayed']).toBe('true');
      }
    },
  },
  {
    group: 'delivery',
    name: 'a client that disconnects while the handler runs does not leave the receipt processing; the retry is a replay',
    async run(h) {
      const started = gate();
      await h.start({}, async (call, n) => {
        started.open();
        if (!call.socket.destroyed) await new Promise((resolve) => call.socket.once('close', resolve));
        return { kind: 'json', value: { call: n } };
      });
      const client = httpRequest({
        host: '127.0.0.1',
        port: h.port(),
        method: 'POST',
        path: '/hook',
        headers: { 'content-type': 'application/json', 'x-event-id': 'c3', 'content-length': Buffer.byteLength(BODY) },
      });
      client.on('error', () => undefined);
      client.end(BODY);
      await started.promise;
      client.destroy();
      await h.events('completed');
      expect(await h.receipt('c3')).toMatchObject({ status: 'completed' });
      const retry = await h.post('c3');
      expect(retry.headers['idempotent-replayed']).toBe('true');
      expect(JSON.parse(retry.body.toString())).toEqual({ call: 1 });
    },
  },
];
