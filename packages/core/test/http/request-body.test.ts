/** Reading a Web-standard request body under a byte limit: counted as it arrives, refused early when announced. */
import { ConfigError } from '../../src';
import {
  DEFAULT_MAX_REQUEST_BYTES,
  REQUEST_TOO_LARGE,
  readRequestBody,
  requestTooLarge,
  resolveMaxRequestBytes,
} from '../../src/adapter';

/** A body of `count` chunks of `chunk`, counting how many the reader pulled. */
function chunked(chunk: string, count: number) {
  let pulled = 0;
  const bytes = new TextEncoder().encode(chunk);
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled++ >= count) controller.close();
      else controller.enqueue(bytes);
    },
  });
  return { stream, pulled: () => pulled };
}

const post = (
  body: string | ReadableStream<Uint8Array> | null,
  headers: Record<string, string> = {},
) =>
  new Request('http://localhost/hook', {
    method: 'POST',
    body,
    headers,
    duplex: 'half',
  } as RequestInit);

describe('readRequestBody', () => {
  it('reads the exact bytes from a clone: the request stays unread for the handler', async () => {
    const request = post('{"a":  1}');
    expect((await readRequestBody(request, 100))?.toString()).toBe('{"a":  1}');
    expect(request.bodyUsed).toBe(false);
    expect(await request.text()).toBe('{"a":  1}');
  });

  it('counts a streamed body while reading and stops one chunk past the limit', async () => {
    const body = chunked('12345', 1000);
    expect(await readRequestBody(post(body.stream), 10)).toBe(REQUEST_TOO_LARGE);
    expect(body.pulled()).toBeLessThan(10);
  });

  it('refuses a body whose Content-Length announces more than the limit without reading it', async () => {
    const body = chunked('12345', 2);
    const request = post(body.stream, { 'content-length': '11' });
    expect(await readRequestBody(request, 10)).toBe(REQUEST_TOO_LARGE);
    expect(body.pulled()).toBeLessThanOrEqual(1);
  });

  it('gives empty bytes without a body and undefined for a body already read', async () => {
    expect(await readRequestBody(new Request('http://localhost/'), 0)).toEqual(Buffer.alloc(0));
    const read = post('x');
    await read.text();
    expect(await readRequestBody(read, 10)).toBeUndefined();
  });
});

describe('maxRequestBytes', () => {
  it('defaults to 1 MiB and refuses what is not a whole number of bytes, naming the option', () => {
    expect(resolveMaxRequestBytes(undefined)).toBe(DEFAULT_MAX_REQUEST_BYTES);
    expect(DEFAULT_MAX_REQUEST_BYTES).toBe(1024 * 1024);
    expect(resolveMaxRequestBytes(0)).toBe(0);
    for (const bad of [-1, 1.5, Number.NaN, '1mb'])
      expect(() => resolveMaxRequestBytes(bad)).toThrow(
        expect.objectContaining({ option: 'maxRequestBytes' }),
      );
    expect(() => resolveMaxRequestBytes(-1, 'limit')).toThrow(ConfigError);
  });

  it('has a 413 answer that names the limit', () => {
    const answer = requestTooLarge(10);
    expect(answer.status).toBe(413);
    expect(answer.body.toString()).toBe('Request body larger than the limit of 10 bytes');
  });
});
