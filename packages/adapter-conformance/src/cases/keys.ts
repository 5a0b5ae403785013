/** @module Issue behaviours 3 and 5, and verify: requests the guard refuses before any claim. */
import { ConfigError } from '@webhook-idempotency/core';
import type { AdapterCase } from '../case';
import { BODY } from '../harness';
import { unreachableStore } from '../stores';

const json = (body: Buffer) => JSON.parse(body.toString()) as { code: string; message: string };

export const keyCases: AdapterCase[] = [
  {
    group: 'keys',
    name: 'no key: 400 JSON naming the missing key, handler not run, no receipt',
    async run(h) {
      await h.start();
      const res = await h.post(undefined);
      expect(res.status).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(json(res.body).code).toBe('ERR_IDEMPOTENCY_KEY_MISSING');
      expect(json(res.body).message).toContain('X-Event-Id header');
      expect(h.calls()).toBe(0);
    },
  },
  {
    group: 'keys',
    name: "onMissingKey: 'passthrough' runs the handler unguarded every time",
    async run(h) {
      await h.start({ onMissingKey: 'passthrough' });
      const a = await h.post(undefined);
      const b = await h.post(undefined);
      expect([a.status, b.status]).toEqual([200, 200]);
      expect(b.headers['idempotent-replayed']).toBeUndefined();
      expect(h.calls()).toBe(2);
    },
  },
  {
    group: 'keys',
    name: 'a key over the limit: 400 ERR_IDEMPOTENCY_KEY_INVALID, handler not run',
    async run(h) {
      await h.start();
      const res = await h.post('k'.repeat(161));
      expect(res.status).toBe(400);
      expect(json(res.body).code).toBe('ERR_IDEMPOTENCY_KEY_INVALID');
      expect(h.calls()).toBe(0);
    },
  },
  {
    group: 'keys',
    name: 'store unreachable: 503 (fail closed), handler not run',
    async run(h) {
      await h.start({ store: unreachableStore() });
      const res = await h.post('k1');
      expect(res.status).toBe(503);
      expect(json(res.body).code).toBe('ERR_IDEMPOTENCY_STORE');
      expect(res.body.toString()).not.toContain('127.0.0.1'); // no driver detail to the caller
      expect(h.calls()).toBe(0);
    },
  },
  {
    group: 'keys',
    name: "onStoreError: 'passthrough' runs the handler when the store is down",
    async run(h) {
      await h.start({ store: unreachableStore(), onStoreError: 'passthrough' });
      expect((await h.post('k2')).status).toBe(200);
      expect(h.calls()).toBe(1);
    },
  },
  {
    group: 'keys',
    name: 'verify false: 401, no receipt, handler not run; verify sees the exact raw bytes',
    async run(h) {
      const seen: string[] = [];
      await h.start({
        verify: (native, rawBody) => {
          seen.push(rawBody?.toString('utf8') ?? '<none>');
          return native.headers['x-signature'] === 'good';
        },
      });
      const bad = await h.post('k3', BODY, { 'x-signature': 'bad' });
      expect(bad.status).toBe(401);
      expect(json(bad.body).code).toBe('ERR_IDEMPOTENCY_SIGNATURE_INVALID');
      expect(await h.receipt('k3')).toBeNull();
      expect(h.calls()).toBe(0);
      expect((await h.post('k3', BODY, { 'x-signature': 'good' })).status).toBe(200);
      expect(seen).toEqual([BODY, BODY]);
    },
  },
  {
    group: 'keys',
    name: 'invalid options throw a ConfigError naming the option when the app is built',
    async run(h) {
      await expect(h.start({ inProgressStatus: 429 as 409 })).rejects.toMatchObject({
        name: 'ConfigError',
        option: 'inProgressStatus',
      });
      await expect(h.start({ maxResponseBytes: -1 })).rejects.toBeInstanceOf(ConfigError);
    },
  },
  {
    group: 'keys',
    name: 'transactional mode hands the route the transaction, when the store has them',
    async run(h) {
      if (!h.store.capabilities.transactional) {
        await expect(h.start({ store: h.store, transactional: true })).rejects.toMatchObject({
          option: 'transactional',
        });
        return;
      }
      await h.start({ store: h.store, transactional: true }, (call) => ({
        kind: 'json',
        value: {
          transaction: call.idempotency?.transaction !== undefined,
          attempts: call.idempotency?.attempts,
        },
      }));
      const res = await h.post('k4');
      expect(JSON.parse(res.body.toString())).toEqual({ transaction: true, attempts: 1 });
      expect(await h.receipt('k4')).toMatchObject({ status: 'completed' });
    },
  },
];
