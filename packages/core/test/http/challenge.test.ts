/**
 * A preset's `challenge` answers its provider's handshake sent as a read (Braintree's
 * `bt_challenge` GET), in the synchronous engine and in inbox mode alike: asked only for GET and
 * HEAD, before the read passes through unguarded; no claim, nothing stored, no handler.
 */
import { InMemoryStore, type HttpRequest, type ProviderPreset } from '@webhook-idempotency/core';
import { createEngine, createInboxEngine } from '@webhook-idempotency/core/adapter';
import { InMemoryInbox } from '@webhook-idempotency/core/inbox';

const preset: ProviderPreset = {
  provider: 'acme',
  key: (r) => r.headers['x-id'] as string | undefined,
  verify: (r) => r.headers['x-sig'] === 'good',
  challenge: (r) =>
    r.url === '/hook?challenge=abc'
      ? { status: 200, headers: { 'content-type': 'text/plain' }, body: Buffer.from('proof') }
      : undefined,
  needsRawBody: false,
  retentionDays: 1,
};

const request = (
  method: string,
  url: string,
  headers: Record<string, string> = {},
): HttpRequest => ({
  method,
  url,
  headers,
  rawBody: method === 'GET' ? undefined : Buffer.from('{}'),
  body: undefined,
  native: null,
});

describe("a preset's challenge", () => {
  it('answers a GET (and HEAD) challenge in the engine; any other read passes through unguarded', async () => {
    const store = new InMemoryStore();
    const engine = createEngine({ store, preset });
    const answered = await engine.begin(request('GET', '/hook?challenge=abc'));
    expect(answered).toMatchObject({
      action: 'respond',
      replayed: false,
      response: { status: 200 },
    });
    expect(answered.action === 'respond' && answered.response.body.toString()).toBe('proof');
    expect((await engine.begin(request('HEAD', '/hook?challenge=abc'))).action).toBe('respond');
    expect(await engine.begin(request('GET', '/hook'))).toEqual({ action: 'pass' });
    expect(await engine.begin(request('OPTIONS', '/hook?challenge=abc'))).toEqual({
      action: 'pass',
    });
    expect(store.size).toBe(0);
    // A POST shaped like the challenge is a delivery like any other: verified, then claimed.
    expect((await engine.begin(request('POST', '/hook?challenge=abc'))).action).toBe('respond');
    const post = await engine.begin(
      request('POST', '/hook?challenge=abc', { 'x-sig': 'good', 'x-id': 'd1' }),
    );
    expect(post.action).toBe('run');
  });

  it('answers a GET challenge in inbox mode and stores nothing', async () => {
    const inbox = new InMemoryInbox();
    const engine = createInboxEngine({ inbox, preset });
    const answered = await engine.accept(request('GET', '/hook?challenge=abc'));
    expect(answered).toMatchObject({ action: 'respond', stored: false, response: { status: 200 } });
    expect(await engine.accept(request('GET', '/hook'))).toEqual({ action: 'pass' });
    expect(await inbox.find('acme', 'd1')).toBeNull();
  });

  it('a preset without one leaves every read unguarded, as before', async () => {
    const { challenge, ...plain } = preset;
    const engine = createEngine({ store: new InMemoryStore(), preset: plain });
    expect(challenge).toBeDefined();
    expect(await engine.begin(request('GET', '/hook?challenge=abc'))).toEqual({ action: 'pass' });
  });
});
