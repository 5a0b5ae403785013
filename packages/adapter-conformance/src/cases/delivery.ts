/** @module Issue behaviours 2 and 8: concurrent duplicates, completion before the flush, client disconnects. */
import { request as httpRequest } from 'node:http';
import type { AdapterCase } from '../case';
import type { Store } from '@webhook-idempotency/core';
import { BODY, gate } from '../harness';

/** `store`, with `complete` yielding to the event loop first and logging when it has been written. */
function completionLogged(store: Store<unknown>, log: string[]): Store<unknown> {
  const wrapped = Object.create(store) as Store<unknown>;
  return Object.assign(wrapped, {
    capabilities: store.capabilities,
    async complete(...args: Parameters<Store<unknown>['complete']>) {
      await new Promise((resolve) => setImmediate(resolve));
      const ok = await store.complete(...args);
      log.push('completed');
      return ok;
    },
  });
}

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
        if (res.status === 409)
          expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
        else expect(JSON.parse(res.body.toString())).toEqual({ received: 'c1', call: 1 });
      }
      expect(responses.every((res) => res.status === 200 || res.status === 409)).toBe(true);
      expect(
        handled.filter((res) => res.headers['idempotent-replayed'] === undefined),
      ).toHaveLength(1);
      expect((await h.post('c1')).headers['idempotent-replayed']).toBe('true');
    },
  },
  {
    group: 'delivery',
    name: 'the receipt is completed before the answer is flushed: completion is logged before the first byte reaches the socket',
    needs: 'socket',
    async run(h) {
      // The store's complete yields to the event loop first, so an adapter that flushed without
      // waiting for it would write to the socket before "completed" is logged.
      const log: string[] = [];
      await h.start({ store: completionLogged(h.store, log) }, (call, n) => {
        const { socket } = call;
        const write = socket.write;
        socket.write = function firstWrite(this: typeof socket, ...args: Parameters<typeof write>) {
          log.push('flushed');
          socket.write = write;
          return write.apply(this, args);
        } as typeof write;
        return { kind: 'json', value: { call: n } };
      });
      expect((await h.post('c2')).status).toBe(200);
      expect(log).toEqual(['completed', 'flushed']);
    },
  },
  {
    group: 'delivery',
    name: 'a duplicate sent right after the first answer arrives is a replay, never a 409',
    async run(h) {
      await h.start();
      for (let i = 0; i < 5; i++) {
        const id = `c3-${i}`;
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
    needs: 'socket',
    async run(h) {
      const started = gate();
      await h.start({}, async (call, n) => {
        started.open();
        if (!call.socket.destroyed)
          await new Promise((resolve) => call.socket.once('close', resolve));
        return { kind: 'json', value: { call: n } };
      });
      const client = httpRequest({
        host: '127.0.0.1',
        port: h.port(),
        method: 'POST',
        path: '/hook',
        headers: {
          'content-type': 'application/json',
          'x-event-id': 'c4',
          'content-length': Buffer.byteLength(BODY),
        },
      });
      client.on('error', () => undefined);
      client.end(BODY);
      await started.promise;
      client.destroy();
      await h.events('completed');
      expect(await h.receipt('c4')).toMatchObject({ status: 'completed' });
      const retry = await h.post('c4');
      expect(retry.headers['idempotent-replayed']).toBe('true');
      expect(JSON.parse(retry.body.toString())).toEqual({ call: 1 });
    },
  },
];
