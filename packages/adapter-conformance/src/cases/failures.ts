/** @module A handler that throws or answers non-2xx leaves the receipt failed and retryable. */
import { StoreError, type Store } from '@webhook-idempotency/core';
import type { AdapterCase } from '../case';

/**
 * `store`, reporting every failed transaction as one whose connection it lost under the handler
 * (what a SQL store says when the database ended the connection: the rollback could not be sent).
 */
function losingConnections(store: Store<unknown>): Store<unknown> {
  return {
    capabilities: store.capabilities,
    claim: (key, input) => store.claim(key, input),
    reclaim: (key, input) => store.reclaim(key, input),
    complete: (key, input, transaction) => store.complete(key, input, transaction),
    fail: (key, input) => store.fail(key, input),
    find: (key, at) => store.find(key, at),
    purge: (input) => store.purge(input),
    withTransaction: (work, options) =>
      store.withTransaction!(work, options).catch((error: unknown) => {
        throw new StoreError('transaction', error);
      }),
  };
}

export const failureCases: AdapterCase[] = [
  {
    group: 'failures',
    name: "a handler that throws: the framework's own 500, receipt failed, the next delivery runs it again",
    async run(h) {
      await h.start({}, (call, n) => {
        if (n === 1) throw new Error('boom');
        return {
          kind: 'json',
          value: {
            call: n,
            attempts: call.idempotency?.attempts,
            isRetry: call.idempotency?.isRetry,
          },
        };
      });
      const first = await h.post('f1');
      expect(first.status).toBe(h.capabilities.errorStatus ?? 500);
      expect(first.headers['idempotent-replayed']).toBeUndefined();
      expect(await h.receipt('f1')).toMatchObject({ status: 'failed', attempts: 1 });
      const second = await h.post('f1');
      expect(second.status).toBe(200);
      expect(JSON.parse(second.body.toString())).toEqual({ call: 2, attempts: 2, isRetry: true });
      expect((await h.post('f1')).headers['idempotent-replayed']).toBe('true');
      expect(h.calls()).toBe(2);
    },
  },
  {
    group: 'failures',
    name: 'a non-2xx answer goes out unchanged and leaves the receipt failed; the next delivery runs again',
    async run(h) {
      await h.start({}, (_call, n) =>
        n === 1
          ? {
              kind: 'json',
              status: 418,
              headers: { 'x-reason': 'teapot' },
              value: { error: 'short and stout' },
            }
          : { kind: 'json', value: { call: n } },
      );
      const first = await h.post('f2');
      expect(first.status).toBe(418);
      expect(first.headers['x-reason']).toBe('teapot');
      expect(JSON.parse(first.body.toString())).toEqual({ error: 'short and stout' });
      expect(await h.receipt('f2')).toMatchObject({ status: 'failed' });
      expect((await h.post('f2')).status).toBe(200);
      expect(h.calls()).toBe(2);
    },
  },
  {
    group: 'failures',
    name: 'a response over maxResponseBytes goes to the framework error handling and leaves the receipt failed',
    async run(h) {
      await h.start({ maxResponseBytes: 8 }, () => ({
        kind: 'text',
        headers: { 'content-type': 'text/plain' },
        value: 'more than eight bytes',
      }));
      const res = await h.post('f3');
      expect(res.status).toBe(h.capabilities.errorStatus ?? 500);
      expect(await h.receipt('f3')).toMatchObject({ status: 'failed' });
    },
  },
  {
    group: 'failures',
    name: "a handler whose transaction connection the store lost: 503 + Retry-After, not the framework's 500",
    async run(h) {
      if (!h.store.capabilities.transactional) return;
      await h.start({ store: losingConnections(h.store), transactional: true }, () => {
        // The handler's next statement on a connection the database ended.
        throw new Error('Connection terminated unexpectedly');
      });
      const res = await h.post('f4');
      expect([res.status, res.headers['retry-after']]).toEqual([503, '1']);
      expect(JSON.parse(res.body.toString())).toMatchObject({ code: 'ERR_IDEMPOTENCY_STORE' });
      expect(res.body.toString()).not.toMatch(/terminated/);
      expect(await h.receipt('f4')).toMatchObject({ status: 'failed' });
    },
  },
];
