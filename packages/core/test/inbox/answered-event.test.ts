/**
 * The inbox endpoint reports its answer time: one `answered` event per request with a key
 * (stored, duplicate, or the 503 of a failed enqueue), carrying the status and how long the
 * endpoint took, the verification included; nothing for a request refused before its key.
 */
import type { HttpRequest, ProviderPreset } from '@webhook-idempotency/core';
import { createInboxEngine } from '@webhook-idempotency/core/adapter';
import { type InboxEvent, InMemoryInbox } from '@webhook-idempotency/core/inbox';

/** A preset whose check takes at least `verifyMs`: the answer time must include it. */
const presetWith = (verifyMs: number): ProviderPreset => ({
  provider: 'acme',
  key: (r) => r.headers['x-id'] as string | undefined,
  verify: async (r) => {
    await new Promise((resolve) => setTimeout(resolve, verifyMs));
    return r.headers['x-sig'] === 'good';
  },
  needsRawBody: true,
  retentionDays: 1,
});

const post = (headers: Record<string, string>): HttpRequest => ({
  method: 'POST',
  url: '/hook',
  headers,
  rawBody: Buffer.from('{}'),
  body: undefined,
  native: null,
});

describe("the inbox endpoint's answered event", () => {
  it('one per delivery with a key: stored, then duplicate, with the status and the time including verification', async () => {
    const events: InboxEvent[] = [];
    const engine = createInboxEngine({
      inbox: new InMemoryInbox(),
      preset: presetWith(20),
      response: { status: 202 },
      onEvent: (event) => events.push(event),
    });
    await engine.accept(post({ 'x-sig': 'good', 'x-id': 'evt_1' }));
    await engine.accept(post({ 'x-sig': 'good', 'x-id': 'evt_1' }));
    await engine.accept(post({ 'x-sig': 'forged', 'x-id': 'evt_2' })); // 401: no key reached
    await engine.accept(post({ 'x-sig': 'good' })); // 400: no key
    const answered = events.filter((e) => e.type === 'answered');
    expect(answered).toEqual([
      expect.objectContaining({
        provider: 'acme',
        externalId: 'evt_1',
        outcome: 'stored',
        status: 202,
      }),
      expect.objectContaining({
        provider: 'acme',
        externalId: 'evt_1',
        outcome: 'duplicate',
        status: 202,
      }),
    ]);
    for (const event of answered)
      expect(event.type === 'answered' && event.durationMs).toBeGreaterThanOrEqual(19);
    // It follows the stored/duplicate event of the same request.
    expect(events.map((e) => e.type)).toEqual(['stored', 'answered', 'duplicate', 'answered']);
  });

  it('a failed enqueue is answered 503 and reported as store_error, after the store-error event', async () => {
    const inbox = new InMemoryInbox();
    const failing = Object.assign(Object.create(inbox) as InMemoryInbox, {
      enqueue: () => Promise.reject(new Error('connection refused')),
    });
    const events: InboxEvent[] = [];
    const engine = createInboxEngine({
      inbox: failing,
      preset: presetWith(0),
      onEvent: (event) => events.push(event),
    });
    const decision = await engine.accept(post({ 'x-sig': 'good', 'x-id': 'evt_1' }));
    expect(decision).toMatchObject({ action: 'respond', response: { status: 503 } });
    expect(events.map((e) => e.type)).toEqual(['store-error', 'answered']);
    expect(events[1]).toMatchObject({ outcome: 'store_error', status: 503, externalId: 'evt_1' });
  });
});
