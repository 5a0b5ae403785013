/**
 * The Web adapters' 413 (a body over `maxRequestBytes`) used to be answered with the rest of the
 * body left unread: Bun and workerd then close the connection under a sender still writing, which
 * gets a reset instead of the 413. Now the 413 goes out at once and its end waits while the rest
 * is read off and discarded, within 16 MiB, a 1 s pause and 10 s; then the body is cancelled. Driven
 * here with Node's own Request/Response and bodies that count what is pulled from them; the
 * runtimes themselves are in tests/runtimes, examples/cloudflare-d1 and the adapters' tests.
 */
import {
  answerWhileDiscarding,
  DISCARD_AFTER_ANSWER_BYTES,
  readWebRequest,
} from '../../src/adapter';

const MiB = 1024 * 1024;
const PIECE = 64 * 1024;
const TOO_LARGE = `Request body larger than the limit of ${MiB} bytes`;

/** A request body of `pieces` pieces of 64 KiB (endless when `Infinity`), counting what was pulled. */
function body(pieces: number, { stallAfter = Infinity, failAfter = Infinity } = {}) {
  let pulled = 0;
  let cancelled = false;
  let closed = false;
  const piece = new Uint8Array(PIECE).fill(0x61);
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled === pieces) {
        closed = true;
        return controller.close();
      }
      if (pulled === failAfter) return controller.error(new Error('the sender went away'));
      if (pulled === stallAfter) return new Promise<void>(() => {}); // the sender stops writing
      pulled++;
      controller.enqueue(piece);
    },
    cancel() {
      cancelled = true;
    },
  });
  return {
    stream,
    pulledBytes: () => pulled * PIECE,
    cancelled: () => cancelled,
    closed: () => closed,
  };
}

const post = (stream: ReadableStream<Uint8Array>, headers: Record<string, string> = {}) =>
  new Request('http://localhost/hook', {
    method: 'POST',
    body: stream,
    headers,
    duplex: 'half',
  } as RequestInit);

/** The adapters' view of `request` under a 1 MiB limit: here always the 413 `Response`. */
async function refused(request: Request): Promise<Response> {
  const answer = await readWebRequest(request, undefined, MiB);
  if (!(answer instanceof Response)) throw new Error('the body was not refused');
  expect(answer.status).toBe(413);
  return answer;
}

describe('a 413 on a Web-standard server reads off the rest of the body before it ends', () => {
  it.each([
    ['announced by Content-Length', { 'content-length': String(2 * MiB) }],
    ['sent chunked', {}],
  ])(
    'a 2 MiB body %s: the whole body is read before the answer ends, and nothing cancels it',
    async (_, headers) => {
      const sent = body(32);
      const answer = await refused(post(sent.stream, headers));
      expect(await answer.text()).toBe(TOO_LARGE);
      expect(sent.pulledBytes()).toBe(2 * MiB);
      expect(sent.closed()).toBe(true);
      expect(sent.cancelled()).toBe(false);
    },
  );

  it('an endless body: read off for 16 MiB at most, then cancelled, and the answer ends', async () => {
    const sent = body(Infinity);
    const answer = await refused(post(sent.stream));
    expect(await answer.text()).toBe(TOO_LARGE);
    expect(sent.cancelled()).toBe(true);
    // What the limit read, what was discarded past it, and what the streams pulled ahead.
    expect(sent.pulledBytes()).toBeGreaterThan(DISCARD_AFTER_ANSWER_BYTES);
    expect(sent.pulledBytes()).toBeLessThanOrEqual(MiB + DISCARD_AFTER_ANSWER_BYTES + 4 * PIECE);
  });

  it('a body that stops coming: the answer ends once the time bound passes, and the body is cancelled', async () => {
    const sent = body(Infinity, { stallAfter: 20 });
    const answer = await refused(post(sent.stream));
    expect(await answer.text()).toBe(TOO_LARGE);
    expect(sent.cancelled()).toBe(true);
    expect(sent.pulledBytes()).toBe(20 * PIECE);
  });

  it('a sender that goes away mid-body: the answer still ends', async () => {
    const sent = body(Infinity, { failAfter: 24 });
    const answer = await refused(post(sent.stream, { 'content-length': String(4 * MiB) }));
    expect(await answer.text()).toBe(TOO_LARGE);
    expect(sent.pulledBytes()).toBe(24 * PIECE);
  });

  it('a reader of the answer that hangs up: the body is no longer read, it is cancelled', async () => {
    const sent = body(Infinity, { stallAfter: 20 });
    const answer = await refused(post(sent.stream, { 'content-length': String(4 * MiB) }));
    const reader = (answer.body as ReadableStream<Uint8Array>).getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe(TOO_LARGE);
    await reader.cancel();
    expect(sent.cancelled()).toBe(true);
  });

  it('answerWhileDiscarding keeps status, status text, headers and bytes, and gives back an answer to a request without a body left', async () => {
    const sent = body(2);
    const answer = answerWhileDiscarding(
      post(sent.stream),
      new Response('nope', { status: 413, statusText: 'Too Big', headers: { 'x-a': '1' } }),
    );
    expect([answer.status, answer.statusText, answer.headers.get('x-a')]).toEqual([
      413,
      'Too Big',
      '1',
    ]);
    expect(await answer.text()).toBe('nope');
    expect(sent.closed()).toBe(true);
    const bodiless = new Response('as it is', { status: 413 });
    expect(answerWhileDiscarding(new Request('http://localhost/'), bodiless)).toBe(bodiless);
    const read = post(body(1).stream);
    await read.text();
    expect(answerWhileDiscarding(read, bodiless)).toBe(bodiless);
  });
});
