/** The held response over node:http, on a real server: held until recorded, replaced, failed, answered by the guard. */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  abortHeld,
  answerNow,
  type CapturedResponse,
  holdResponse,
  type HttpResponseRecord,
  type PendingRun,
  sendRecord,
} from '../../src/adapter';

/** A run whose `finish` and `abort` answer as told, and that records what it was given. */
function fakeRun(
  settle: {
    finish?: (captured: CapturedResponse) => Promise<HttpResponseRecord | null>;
    abort?: () => Promise<HttpResponseRecord | null>;
    expires?: boolean;
  } = {},
) {
  const finished: CapturedResponse[] = [];
  let expire: ((answer: HttpResponseRecord) => void) | undefined;
  const run: PendingRun = {
    finish(captured) {
      finished.push(captured);
      return settle.finish ? settle.finish(captured) : Promise.resolve(null);
    },
    abort: () => (settle.abort ? settle.abort() : Promise.resolve(null)),
    answeredAround: () => Promise.resolve(),
    onExpire(send) {
      expire = send;
    },
    expires: settle.expires ?? false,
    enter: (fn) => fn(),
  };
  return { run, finished, expire: (answer: HttpResponseRecord) => expire?.(answer) };
}

const unavailable: HttpResponseRecord = {
  status: 503,
  headers: { 'retry-after': '1', 'content-type': 'text/plain' },
  body: Buffer.from('later'),
};

/** Serves one handler on a loopback port; `get` answers status, status text, headers and body. */
async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void) {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    async get() {
      const response = await fetch(`http://127.0.0.1:${port}/`);
      return {
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
        body: await response.text(),
      };
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

const noError = (error: unknown) => {
  throw error;
};

describe('holdResponse', () => {
  it('holds the whole answer until the run recorded it, then flushes it with a Content-Length; write callbacks run after, in order', async () => {
    const order: string[] = [];
    const { run, finished } = fakeRun({
      finish: async () => {
        await new Promise((resolve) => setImmediate(resolve));
        order.push('recorded');
        return null;
      },
    });
    const app = await serve((_req, res) => {
      holdResponse(res, run, { maxResponseBytes: 100, onError: noError });
      res.setHeader('content-type', 'text/plain');
      res.write('a', () => order.push('write'));
      res.end('b', () => order.push('end'));
      order.push(`headers sent: ${res.headersSent}`);
    });
    try {
      const answer = await app.get();
      expect([answer.status, answer.body, answer.headers.get('content-length')]).toEqual([
        200,
        'ab',
        '2',
      ]);
      expect(finished[0]?.body.toString()).toBe('ab');
      expect(order).toEqual(['headers sent: false', 'recorded', 'write', 'end']);
    } finally {
      await app.close();
    }
  });

  it('sends the answer as recorded: a status and a Transfer-Encoding set after the held end are undone, and the answer is framed once', async () => {
    const { run } = fakeRun({
      finish: async () => {
        await new Promise((resolve) => setImmediate(resolve));
        return null;
      },
    });
    const app = await serve((_req, res) => {
      holdResponse(res, run, { maxResponseBytes: 100, onError: noError });
      res.setHeader('x-handler', 'yes');
      res.write('a');
      res.end('b');
      res.statusCode = 500;
      res.removeHeader('x-handler');
      res.setHeader('transfer-encoding', 'chunked');
    });
    try {
      const answer = await app.get();
      expect([
        answer.status,
        answer.body,
        answer.headers.get('x-handler'),
        answer.headers.get('transfer-encoding'),
        answer.headers.get('content-length'),
      ]).toEqual([200, 'ab', 'yes', null, '2']);
    } finally {
      await app.close();
    }
  });

  it("sends the engine's replacement instead: its status, headers and body, none of the handler's", async () => {
    const { run } = fakeRun({ finish: async () => unavailable });
    const app = await serve((_req, res) => {
      holdResponse(res, run, { maxResponseBytes: 100, onError: noError });
      res.writeHead(200, 'Fine', { 'x-handler': 'yes' });
      res.end('done');
    });
    try {
      const answer = await app.get();
      expect([answer.status, answer.statusText, answer.body]).toEqual([
        503,
        'Service Unavailable',
        'later',
      ]);
      expect(answer.headers.get('x-handler')).toBeNull();
      expect(answer.headers.get('retry-after')).toBe('1');
    } finally {
      await app.close();
    }
  });

  it('holds no more than maxResponseBytes + 1 bytes', async () => {
    const { run, finished } = fakeRun();
    const app = await serve((_req, res) => {
      holdResponse(res, run, { maxResponseBytes: 4, onError: noError });
      res.write('abc');
      res.end('defgh');
    });
    try {
      await app.get();
      expect(finished[0]?.body.toString()).toBe('abcde');
    } finally {
      await app.close();
    }
  });

  it('an answer that cannot be recorded goes to onError on a cleared response (no header of it, status 500)', async () => {
    const failure = new Error('too large');
    const seen: unknown[] = [];
    const { run } = fakeRun({ finish: () => Promise.reject(failure) });
    const app = await serve((_req, res) => {
      holdResponse(res, run, {
        maxResponseBytes: 100,
        onError: (error) => {
          seen.push(error, res.getHeaderNames(), res.statusCode);
          res.end('error answer');
        },
      });
      res.setHeader('x-handler', 'yes');
      res.end('done');
    });
    try {
      const answer = await app.get();
      expect([answer.status, answer.body]).toEqual([500, 'error answer']);
      expect(seen).toEqual([failure, [], 500]);
    } finally {
      await app.close();
    }
  });

  it("the run's deadline answers first: the guard's answer goes out, the handler's late answer is dropped", async () => {
    const { run, finished, expire } = fakeRun({ expires: true });
    let late: () => void = () => undefined;
    const acknowledged = new Promise<void>((resolve) => {
      late = resolve;
    });
    const app = await serve((_req, res) => {
      holdResponse(res, run, { maxResponseBytes: 100, onError: noError });
      res.setHeader('x-handler', 'yes');
      expire(unavailable);
      // A late reply: its header change is ignored, its write acknowledged, nothing thrown.
      res.setHeader('content-type', 'application/json');
      res.end('{"late":true}', late);
    });
    try {
      const answer = await app.get();
      expect([answer.status, answer.body, answer.headers.get('x-handler')]).toEqual([
        503,
        'later',
        null,
      ]);
      await acknowledged;
      expect(finished).toEqual([]);
    } finally {
      await app.close();
    }
  });
});

describe('answerNow', () => {
  it('sends the guard answer on a response nothing holds, and drops what is written later', async () => {
    const app = await serve((_req, res) => {
      res.setHeader('x-before', 'yes');
      expect(answerNow(res, unavailable, noError)).toBe(true);
      expect(answerNow(res, unavailable, noError)).toBe(false);
      res.writeHead(200);
      res.end('late');
    });
    try {
      const answer = await app.get();
      expect([answer.status, answer.body, answer.headers.get('x-before')]).toEqual([
        503,
        'later',
        null,
      ]);
    } finally {
      await app.close();
    }
  });
});

describe('abortHeld', () => {
  it("the handler's failure: the response is passed on, and the error answer goes straight out", async () => {
    const { run } = fakeRun();
    const app = await serve((req, res) => {
      holdResponse(res, run, { maxResponseBytes: 100, onError: noError });
      void abortHeld(res, new Error('handler failed')).then((answered) => {
        expect(answered).toBe(false);
        res.statusCode = 500;
        res.end('filter answer');
      });
      req.resume();
    });
    try {
      expect(await app.get()).toMatchObject({ status: 500, body: 'filter answer' });
    } finally {
      await app.close();
    }
  });

  it("a transaction the store lost: the guard's answer goes out, the error handler's is dropped", async () => {
    const { run } = fakeRun({ abort: async () => unavailable });
    const app = await serve((_req, res) => {
      holdResponse(res, run, { maxResponseBytes: 100, onError: noError });
      void abortHeld(res, new Error('connection lost')).then((answered) => {
        expect(answered).toBe(true);
        res.end('filter answer');
      });
    });
    try {
      expect(await app.get()).toMatchObject({ status: 503, body: 'later' });
    } finally {
      await app.close();
    }
  });

  it('resolves false at once for a response no run holds', async () => {
    const app = await serve(async (_req, res) => {
      const answered = await abortHeld(res, new Error('x'));
      sendRecord(res, { status: answered ? 500 : 204, headers: {}, body: Buffer.alloc(0) });
    });
    try {
      expect((await app.get()).status).toBe(204);
    } finally {
      await app.close();
    }
  });
});
