/**
 * The stored answer: written as the receipt's JSON text in one pass, read back in one decode. The
 * text is the one the earlier encoding (a record object, then the codec's JSON.stringify) wrote,
 * so receipts stored before replay after; a written string is stored as the text of the bytes it
 * goes out as; a codec of one's own still gets the record.
 */
import { type HttpRequest, IdempotencyGuard, InMemoryStore, RequestKey } from '../../src';
import { createEngine, type Decision } from '../../src/adapter';

const request = (): HttpRequest<unknown> => ({
  method: 'POST',
  url: '/hook',
  headers: {},
  rawBody: Buffer.from('{"a":1}'),
  body: undefined,
  native: {},
});

/** Two answers as 0de3aa8's engine stored them (its `encodeResponse`, then `JSON.stringify`), captured from that code. */
const STORED_BEFORE = {
  binary:
    '{"status":201,"headers":{"content-type":"application/json","x-trace":["a","b"],"etag":"W/\\"x\\""},"body":"/wBB","encoding":"base64"}',
  text: '{"status":200,"headers":{"content-type":"text/plain; charset=utf-8","x-n":"7"},"body":"héllo \\"quoted\\" \\\\ 😀\\n","encoding":"utf8"}',
};

/** The handler's answers those texts were stored from. */
const ANSWERS = {
  binary: {
    status: 201,
    headers: {
      'Content-Type': 'application/json',
      'X-Trace': ['a', 'b'],
      'content-length': 3,
      etag: 'W/"x"',
      'set-cookie': 'no',
      'idempotent-replayed': 'no',
    },
    body: Buffer.from([0xff, 0x00, 0x41]),
  },
  text: {
    status: 200,
    headers: { 'content-type': 'text/plain; charset=utf-8', 'x-n': 7 },
    body: Buffer.from('héllo "quoted" \\ 😀\n'),
  },
};

function run(decision: Decision) {
  if (decision.action !== 'run') throw new Error(`expected a run, got ${decision.action}`);
  return decision.run;
}

async function stored(store: InMemoryStore, id: string): Promise<string | null | undefined> {
  return (await store.find(new RequestKey('p', id), { now: Date.now() }))?.response;
}

describe('the stored answer', () => {
  it.each(Object.keys(ANSWERS) as Array<keyof typeof ANSWERS>)(
    'is written as the same text the earlier encoding wrote (%s body)',
    async (kind) => {
      const store = new InMemoryStore();
      const engine = createEngine({ store, provider: 'p', key: () => kind });
      await run(await engine.begin(request())).finish(ANSWERS[kind]);
      expect(await stored(store, kind)).toBe(STORED_BEFORE[kind]);
    },
  );

  it.each(Object.keys(ANSWERS) as Array<keyof typeof ANSWERS>)(
    'replays a receipt the earlier encoding stored, byte for byte (%s body)',
    async (kind) => {
      const store = new InMemoryStore();
      const key = new RequestKey('p', kind);
      const { receipt } = await store.claim(key, { now: Date.now(), fingerprint: null });
      const fence = { attempts: receipt.attempts, claimedAt: receipt.claimedAt };
      await store.complete(key, { now: Date.now(), ...fence, response: STORED_BEFORE[kind] });
      const engine = createEngine({ store, provider: 'p', key: () => kind, fingerprint: false });
      const decision = await engine.begin(request());
      expect(decision).toMatchObject({ action: 'respond', replayed: true });
      if (decision.action !== 'respond') return;
      const { status, body } = decision.response;
      expect(status).toBe(ANSWERS[kind].status);
      expect(body.equals(ANSWERS[kind].body)).toBe(true);
      expect(decision.response.headers).toMatchObject({ 'Idempotent-Replayed': 'true' });
    },
  );

  it('replays of one stored text each get an answer of their own (headers, value lists, body), and another text is decoded as itself', async () => {
    const store = new InMemoryStore();
    const complete = async (id: string, response: string) => {
      const key = new RequestKey('p', id);
      const { receipt } = await store.claim(key, { now: Date.now(), fingerprint: null });
      const fence = { attempts: receipt.attempts, claimedAt: receipt.claimedAt };
      await store.complete(key, { now: Date.now(), ...fence, response });
    };
    await complete('binary', STORED_BEFORE.binary);
    await complete('text', STORED_BEFORE.text);
    await complete('broken', '{"status":');
    let id = 'binary';
    const engine = createEngine({ store, provider: 'p', key: () => id, fingerprint: false });
    const replay = async () => {
      const decision = await engine.begin(request());
      if (decision.action !== 'respond') throw new Error(`expected a replay of ${id}`);
      return decision;
    };
    const first = await replay();
    // What a framework, a hook or a preset's replay may do to the answer it was handed.
    (first.response.headers as Record<string, string>)['x-added-by-the-first'] = 'yes';
    (first.response.headers['x-trace'] as string[]).push('pushed-by-the-first');
    first.response.body[0] = 0x4e;
    const second = await replay();
    expect(second.response.headers).not.toHaveProperty('x-added-by-the-first');
    expect(second.response.headers).not.toBe(first.response.headers);
    expect(second.response.headers).toMatchObject({
      'Idempotent-Replayed': 'true',
      'x-trace': ['a', 'b'],
    });
    expect(second.response.body.equals(ANSWERS.binary.body)).toBe(true);
    id = 'text';
    const other = await replay();
    expect(other.response.status).toBe(200);
    expect(other.response.body.equals(ANSWERS.text.body)).toBe(true);
    id = 'broken';
    expect((await replay()).response).toMatchObject({ status: 503 });
    id = 'binary';
    expect((await replay()).response).toMatchObject({ status: 201 });
  });

  it('stores a written string as the text of the bytes it goes out as (an unpaired surrogate as U+FFFD) and replays those bytes', async () => {
    const store = new InMemoryStore();
    const engine = createEngine({ store, provider: 'p', key: () => 's1' });
    const text = 'plain ✓ a\uD800b';
    await run(await engine.begin(request())).finish({ status: 200, headers: {}, body: text });
    expect(JSON.parse((await stored(store, 's1')) ?? '')).toEqual({
      status: 200,
      headers: {},
      body: 'plain ✓ a\uFFFDb',
      encoding: 'utf8',
    });
    const replay = await engine.begin(request());
    expect(replay.action === 'respond' && replay.response.body.equals(Buffer.from(text))).toBe(
      true,
    );
  });

  it('counts a written string in UTF-8 bytes against maxResponseBytes', async () => {
    const store = new InMemoryStore();
    const engine = createEngine({ store, provider: 'p', key: () => 's2', maxResponseBytes: 5 });
    const finish = run(await engine.begin(request())).finish({
      status: 200,
      headers: {},
      body: 'ééé',
    });
    await expect(finish).rejects.toMatchObject({
      code: 'ERR_IDEMPOTENCY_RESPONSE_TOO_LARGE',
      message: expect.stringContaining('is 6 bytes'),
    });
    expect(await store.find(new RequestKey('p', 's2'), { now: Date.now() })).toMatchObject({
      status: 'failed',
    });
  });

  it("under a codec of one's own, the answer is stored through it as the record, and replayed from it", async () => {
    const store = new InMemoryStore();
    const encoded: unknown[] = [];
    const guard = new IdempotencyGuard(store, {
      codec: {
        encode: (value) => {
          encoded.push(value);
          return `v1:${JSON.stringify(value)}`;
        },
        decode: (text) => JSON.parse(text.slice(3)),
      },
    });
    const engine = createEngine({ guard, provider: 'p', key: () => 'c1' });
    await run(await engine.begin(request())).finish(ANSWERS.text);
    expect(encoded).toEqual([JSON.parse(STORED_BEFORE.text)]);
    expect(await stored(store, 'c1')).toBe(`v1:${STORED_BEFORE.text}`);
    const replay = await engine.begin(request());
    expect(replay).toMatchObject({ action: 'respond', replayed: true });
    expect(replay.action === 'respond' && replay.response.body.equals(ANSWERS.text.body)).toBe(
      true,
    );
  });
});
