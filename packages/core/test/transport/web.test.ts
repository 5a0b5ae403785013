/** The Web-standard transport: the request's bytes under a limit, the handler's Response captured, a record as a Response. */
import {
  captureWebResponse,
  isRecordedStatus,
  NULL_BODY_STATUSES,
  readWebRequest,
  toWebResponse,
} from '../../src/adapter';

const post = (body: string, headers: Record<string, string> = {}) =>
  new Request('http://localhost/hook?a=1', { method: 'POST', body, headers });

describe('isRecordedStatus', () => {
  it('records exactly the 2xx answers', () => {
    expect([199, 200, 201, 204, 299, 300, 304, 404, 500].filter(isRecordedStatus)).toEqual([
      200, 201, 204, 299,
    ]);
  });
});

describe('readWebRequest', () => {
  it("is the engine's view: path and query, lower-cased headers, the exact bytes, the native value; the request stays unread", async () => {
    const request = post('{"a":  1}', { 'X-Event-Id': 'e1' });
    const native = { framework: 'context' };
    const record = await readWebRequest(request, native, 100);
    expect(record).not.toBeInstanceOf(Response);
    expect(record).toMatchObject({ method: 'POST', url: '/hook?a=1', body: undefined, native });
    expect((record as { headers: Record<string, string> }).headers['x-event-id']).toBe('e1');
    expect((record as { rawBody: Buffer }).rawBody.toString()).toBe('{"a":  1}');
    expect(request.bodyUsed).toBe(false);
  });

  it('answers 413 for a body past the limit', async () => {
    const answer = await readWebRequest(post('x'.repeat(11)), undefined, 10);
    expect(answer).toBeInstanceOf(Response);
    expect((answer as Response).status).toBe(413);
  });
});

describe('toWebResponse', () => {
  it('appends repeated headers one by one, and gives a null body to an empty answer or a null body status', async () => {
    const response = toWebResponse({
      status: 200,
      headers: { 'x-a': ['1', '2'], 'content-type': 'text/plain' },
      body: Buffer.from('ok'),
    });
    expect([response.status, response.headers.get('x-a'), await response.text()]).toEqual([
      200,
      '1, 2',
      'ok',
    ]);
    for (const status of NULL_BODY_STATUSES) {
      if (status < 200) continue; // a Response cannot be made with a 1xx status
      expect(toWebResponse({ status, headers: {}, body: Buffer.from('x') }).body).toBeNull();
    }
    expect(toWebResponse({ status: 200, headers: {}, body: Buffer.alloc(0) }).body).toBeNull();
  });
});

describe('captureWebResponse', () => {
  it('reads a recorded answer and sends a new Response with the same bytes, status, status text and headers', async () => {
    const response = new Response('{"ok":true}', {
      status: 201,
      statusText: 'Made',
      headers: { 'content-type': 'application/json' },
    });
    const { captured, sent } = await captureWebResponse(response, 100);
    expect(captured.status).toBe(201);
    expect(captured.headers).toEqual({ 'content-type': 'application/json' });
    expect(captured.body.toString()).toBe('{"ok":true}');
    expect([sent.status, sent.statusText, await sent.text()]).toEqual([201, 'Made', '{"ok":true}']);
  });

  it('leaves an answer that is not recorded unread and sends it as it is', async () => {
    const response = new Response('nope', { status: 422 });
    const { captured, sent } = await captureWebResponse(response, 100);
    expect(sent).toBe(response);
    expect(response.bodyUsed).toBe(false);
    expect(captured.body.length).toBe(0);
  });

  it('reads no more than the limit and one chunk: a longer answer fails its record as too large', async () => {
    const { captured } = await captureWebResponse(new Response('x'.repeat(50)), 10);
    expect(captured.body.length).toBeGreaterThan(10);
  });
});
