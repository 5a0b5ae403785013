/** @module Issue behaviour 4: a handler that throws or answers non-2xx leaves the receipt failed and retryable. */
import type { AdapterCase } from '../case';

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
      expect(first.status).toBe(500);
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
      expect(res.status).toBe(500);
      expect(await h.receipt('f3')).toMatchObject({ status: 'failed' });
    },
  },
];
