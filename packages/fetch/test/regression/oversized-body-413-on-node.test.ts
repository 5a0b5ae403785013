/**
 * A body over `maxRequestBytes` on Node's http server, through the fetch adapter's server
 * (node:http ↔ Request/Response): every sender reads the 413, whether it announced its length or
 * sent it chunked, on a connection of its own or one kept alive and reused; the handler never
 * runs. Node's server read off the rest of a refused body itself before; the adapter now does it
 * on every runtime (Bun and workerd did not: tests/runtimes, examples/cloudflare-d1).
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fetchServer } from '@webhook-idempotency/adapter-conformance/apps/fetch';
import { InMemoryStore } from '@webhook-idempotency/core';
import {
  allAnswered,
  SENDER_KINDS,
  sendOversized,
} from '@webhook-idempotency/test-support/oversized';
import { inbox, withIdempotency } from '../../src';

const MiB = 1024 * 1024;
const ROUNDS = 10;
let server: Server | undefined;

afterEach(
  () => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())),
);

async function serve(handler: (request: Request) => Promise<Response>): Promise<string> {
  server = fetchServer(handler);
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('fetch on node:http: a 2 MiB body over a 1 MiB limit', () => {
  it(`withIdempotency: the sender reads the 413 every time (${ROUNDS} rounds of ${SENDER_KINDS.length} senders); the handler never runs`, async () => {
    let calls = 0;
    const guarded = withIdempotency(
      {
        store: new InMemoryStore(),
        provider: 'p',
        key: (request) => request.headers.get('x-event-id'),
      },
      async () => {
        calls++;
        return new Response('ok');
      },
    );
    const url = await serve((request) => guarded(request));
    const outcomes = await sendOversized({
      url,
      path: '/hook',
      bytes: 2 * MiB,
      rounds: ROUNDS,
      headers: { 'x-event-id': 'evt_big' },
    });
    expect(outcomes).toHaveLength(ROUNDS * SENDER_KINDS.length);
    expect(outcomes).toEqual(allAnswered(outcomes, 413));
    expect(calls).toBe(0);
  });

  it('inbox(): the sender reads the 413 every time; nothing is stored', async () => {
    let stored = 0;
    const endpoint = inbox({
      inbox: { enqueue: async () => ++stored > 0 } as never,
      provider: 'p',
      key: (request) => request.headers.get('x-event-id'),
      unverified: true,
    });
    const url = await serve((request) => endpoint(request));
    const outcomes = await sendOversized({
      url,
      path: '/hook',
      bytes: 2 * MiB,
      rounds: ROUNDS,
      headers: { 'x-event-id': 'evt_big' },
    });
    expect(outcomes).toEqual(allAnswered(outcomes, 413));
    expect(stored).toBe(0);
  });
});
