/**
 * Inbox mode answers a preset's verified handshake itself, like the synchronous engine: nothing
 * is stored (a PING is not a delivery) and a forged handshake is refused before anything else.
 */
import type { HttpRequest, ProviderPreset } from '@webhook-idempotency/core';
import { createInboxEngine } from '@webhook-idempotency/core/adapter';
import { InMemoryInbox } from '@webhook-idempotency/core/inbox';

const preset: ProviderPreset = {
  provider: 'chat',
  key: (r) => r.headers['x-id'] as string | undefined,
  verify: (r) => r.headers['x-sig'] === 'good',
  handshake: (r) =>
    r.headers['x-kind'] === 'ping'
      ? {
          status: 200,
          headers: { 'content-type': 'application/json' },
          body: Buffer.from('{"type":1}'),
        }
      : undefined,
  needsRawBody: false,
  retentionDays: 1,
};

const request = (headers: Record<string, string>): HttpRequest => ({
  method: 'POST',
  url: '/inbox',
  headers,
  rawBody: Buffer.from('{}'),
  body: undefined,
  native: null,
});

it('a verified handshake is answered by the preset and stored nowhere; a forged one is 401; a delivery is stored', async () => {
  const inbox = new InMemoryInbox();
  const engine = createInboxEngine({ inbox, preset });

  const pong = await engine.accept(request({ 'x-sig': 'good', 'x-kind': 'ping', 'x-id': 'p1' }));
  expect(pong).toMatchObject({ action: 'respond', stored: false, response: { status: 200 } });
  expect(pong.action === 'respond' && pong.response.body.toString()).toBe('{"type":1}');
  expect(await inbox.find('chat', 'p1')).toBeNull();

  const forged = await engine.accept(request({ 'x-sig': 'bad', 'x-kind': 'ping', 'x-id': 'p2' }));
  expect(forged).toMatchObject({ action: 'respond', stored: false, response: { status: 401 } });
  expect(await inbox.find('chat', 'p2')).toBeNull();

  const delivery = await engine.accept(request({ 'x-sig': 'good', 'x-id': 'd1' }));
  expect(delivery).toMatchObject({ action: 'respond', stored: true });
  expect(await inbox.find('chat', 'd1')).not.toBeNull();
});
