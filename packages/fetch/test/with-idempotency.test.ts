/** What only the fetch adapter has, driven with Node's global Request/Response (undici) and no server. */
import {
  ConfigError,
  IdempotencyGuard,
  InMemoryStore,
  RequestKey,
} from '@webhook-idempotency/core';
import * as providers from '@webhook-idempotency/providers';
import { withIdempotency } from '../src';

const URL_ = 'https://example.test/api/webhooks?x=1';
const post = (
  id: string | undefined,
  body: ConstructorParameters<typeof Response>[0] = '{"id":"evt_1"}',
  init: RequestInit = {},
) =>
  new Request(URL_, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(id ? { 'x-event-id': id } : {}) },
    body,
    ...init,
  });
const key = (request: Request) => request.headers.get('x-event-id');

/** A stream that yields `chunk` `times` times, counting how many were pulled. */
function chunks(chunk: string, times: number) {
  let pulled = 0;
  let cancelled = false;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled === times) return controller.close();
      pulled++;
      controller.enqueue(new TextEncoder().encode(chunk));
    },
    cancel() {
      cancelled = true;
    },
  });
  return { stream, pulled: () => pulled, cancelled: () => cancelled };
}

describe('withIdempotency', () => {
  it('hands the handler the same Request, unread, with the server arguments after the guard value', async () => {
    const store = new InMemoryStore();
    const seen: unknown[] = [];
    const context = { params: Promise.resolve({ slug: 'a' }) };
    const POST = withIdempotency(
      { store, provider: 'p', key },
      async (request, idempotency, ctx: typeof context) => {
        seen.push(request, await request.json(), idempotency?.attempts, await ctx.params);
        return Response.json({ ok: true }, { status: 201, headers: { 'x-trace': 't1' } });
      },
    );
    const request = post('a1');
    const first = await POST(request, context);
    expect(first.status).toBe(201);
    expect(await first.json()).toEqual({ ok: true });
    expect(seen).toEqual([request, { id: 'evt_1' }, 1, { slug: 'a' }]);
    const again = await POST(post('a1'), context);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('x-trace')).toBe('t1');
    expect(await again.json()).toEqual({ ok: true });
    expect(seen).toHaveLength(4);
  });

  it('gives the engine the path and query, lower-cased headers and the raw bytes', async () => {
    const seen: unknown[] = [];
    const POST = withIdempotency(
      {
        store: new InMemoryStore(),
        preset: {
          provider: 'p',
          needsRawBody: true,
          retentionDays: 1,
          key(request) {
            seen.push(request.url, request.headers['x-event-id'], request.rawBody?.toString());
            return request.headers['x-event-id'] as string;
          },
        },
      },
      () => new Response('ok'),
    );
    expect((await POST(post('b1', '{"a":  1}'))).status).toBe(200);
    expect(seen).toEqual(['/api/webhooks?x=1', 'b1', '{"a":  1}']);
  });

  it('answers 413 past maxRequestBytes, announced or streamed, before the guard runs; the rest of the body is read off before the answer ends', async () => {
    let calls = 0;
    const POST = withIdempotency(
      { store: new InMemoryStore(), provider: 'p', key, maxRequestBytes: 10 },
      () => {
        calls++;
        return new Response('ok');
      },
    );
    const announced = await POST(post('c1', '{"id":"a long body"}'));
    expect(announced.status).toBe(413);
    expect(await announced.text()).toBe('Request body larger than the limit of 10 bytes');
    const body = chunks('12345', 1000);
    const streamed = await POST(post('c1', body.stream, { duplex: 'half' } as RequestInit));
    expect(streamed.status).toBe(413);
    expect(await streamed.text()).toBe('Request body larger than the limit of 10 bytes');
    // Discarded, not kept: the sender wrote its whole body, and only then did the answer end.
    expect(body.pulled()).toBe(1000);
    expect((await POST(post('c1', '{"a":1}'))).status).toBe(200);
    expect(calls).toBe(1);
  });

  it('reads a streamed answer only up to maxResponseBytes: the rest is cancelled, the receipt failed, the error rethrown', async () => {
    const store = new InMemoryStore();
    const body = chunks('0123456789', 1_000_000);
    const POST = withIdempotency(
      { store, provider: 'p', key, maxResponseBytes: 25 },
      () => new Response(body.stream),
    );
    await expect(POST(post('d1'))).rejects.toMatchObject({
      code: 'ERR_IDEMPOTENCY_RESPONSE_TOO_LARGE',
    });
    expect(body.pulled()).toBeLessThan(10);
    expect(body.cancelled()).toBe(true);
    expect(await new IdempotencyGuard(store).find(new RequestKey('p', 'd1'))).toMatchObject({
      status: 'failed',
    });
  });

  it('sends a non-2xx answer as it is, unread, and fails the receipt', async () => {
    const store = new InMemoryStore();
    const answer = new Response('nope', { status: 422 });
    const POST = withIdempotency({ store, provider: 'p', key }, () => answer);
    const sent = await POST(post('e1'));
    expect(sent).toBe(answer);
    expect(sent.bodyUsed).toBe(false);
    expect(await new IdempotencyGuard(store).find(new RequestKey('p', 'e1'))).toMatchObject({
      status: 'failed',
    });
  });

  it('a handler that returns no Response fails the receipt with a TypeError', async () => {
    const store = new InMemoryStore();
    const POST = withIdempotency({ store, provider: 'p', key }, (() => ({
      ok: true,
    })) as unknown as () => Response);
    await expect(POST(post('f1'))).rejects.toThrow(/returned object, not a Response/);
    expect(await new IdempotencyGuard(store).find(new RequestKey('p', 'f1'))).toMatchObject({
      status: 'failed',
    });
  });

  it('a Request whose body was read before is refused by a signing preset (401), the handler not run', async () => {
    let calls = 0;
    const POST = withIdempotency(
      { store: new InMemoryStore(), preset: providers.github({ secret: 's' }) },
      () => {
        calls++;
        return new Response('ok');
      },
    );
    const request = post(undefined, '{}', { headers: { 'x-github-delivery': 'g1' } });
    await request.text();
    expect((await POST(request)).status).toBe(401);
    expect(calls).toBe(0);
  });

  it("a run whose claim was taken over is answered 409 instead of the handler's answer, without its cookies", async () => {
    let now = 1_000_000;
    const guard = new IdempotencyGuard(new InMemoryStore(), {
      staleAfterSeconds: 10,
      clock: () => now,
    });
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    let calls = 0;
    const POST = withIdempotency({ guard, provider: 'p', key }, async () => {
      if (++calls === 1) {
        started();
        await held;
      }
      return Response.json(
        { call: calls },
        { headers: { 'set-cookie': 'session=1', 'x-call': String(calls) } },
      );
    });
    const first = POST(post('l1'));
    await running;
    now += 11_000; // the first claim is stale: the next delivery takes it over
    const second = await POST(post('l1'));
    expect(await second.json()).toEqual({ call: 2 });
    release();
    const lost = await first;
    expect(lost.status).toBe(409);
    expect(((await lost.json()) as { code: string }).code).toBe('ERR_IDEMPOTENCY_CLAIM_LOST');
    expect(lost.headers.get('set-cookie')).toBeNull();
    expect(lost.headers.get('x-call')).toBeNull();
  });

  it("a key of headers.get()'s null (the header is absent) is a missing key: 400, the handler not run, nothing claimed", async () => {
    const store = new InMemoryStore();
    const handler = jest.fn(async () => Response.json({ ok: true }));
    const POST = withIdempotency({ store, provider: 'p', key }, handler);
    const missing = await POST(post(undefined));
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { code?: string }).code).toBe('ERR_IDEMPOTENCY_KEY_MISSING');
    expect(handler).not.toHaveBeenCalled();
    const passing = withIdempotency(
      { store, provider: 'p', key, onMissingKey: 'passthrough' },
      handler,
    );
    expect((await passing(post(undefined))).status).toBe(200);
    expect(handler).toHaveBeenCalledWith(expect.any(Request), undefined);
  });

  it('passes safe methods through unguarded', async () => {
    let calls = 0;
    const GET = withIdempotency({ store: new InMemoryStore(), provider: 'p', key }, (_r, idem) => {
      calls++;
      return Response.json({ guarded: idem !== undefined });
    });
    const get = () => GET(new Request(URL_, { headers: { 'x-event-id': 'g' } }));
    expect(await (await get()).json()).toEqual({ guarded: false });
    expect(await (await get()).json()).toEqual({ guarded: false });
    expect(calls).toBe(2);
  });

  it('checks options when it is called: a ConfigError naming the option, also for a missing handler', () => {
    const store = new InMemoryStore();
    expect(() =>
      withIdempotency({ store, provider: 'p', key, maxRequestBytes: -1 }, () => new Response()),
    ).toThrow(expect.objectContaining({ option: 'maxRequestBytes' }));
    expect(() => withIdempotency({ store, provider: 'p' }, () => new Response())).toThrow(
      ConfigError,
    );
    expect(() =>
      withIdempotency({ store, provider: 'p', key }, undefined as unknown as () => Response),
    ).toThrow(expect.objectContaining({ name: 'ConfigError', option: 'handler' }));
  });

  it('returns a named function', () => {
    expect(
      withIdempotency({ store: new InMemoryStore(), provider: 'p', key }, () => new Response())
        .name,
    ).toBe('idempotency');
  });
});
