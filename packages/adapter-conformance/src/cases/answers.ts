/** @module Every way of answering is captured and replayed byte for byte; only allow-listed headers. */
import { expectReplay } from './expect';
import type { AdapterCase } from '../case';
import type { Answer } from '../types';

const MIB = 1024 * 1024;
/** Bytes that are not valid UTF-8, so they are stored as base64. */
const binary = (size: number) =>
  Buffer.from(Array.from({ length: size }, (_, i) => (i * 131 + 7) % 256));

interface Shape {
  readonly name: string;
  readonly needs?: 'writeAndEnd' | 'streamBody';
  readonly answer: Answer;
}

/** The capability a framework needs to answer in chunks of each kind. */
const CHUNKED_NEEDS = { 'write-end': 'writeAndEnd', stream: 'streamBody' } as const;

/** An answer of `chunks` of `contentType`, written as `kind` says, where the framework can. */
const chunked = (
  name: string,
  kind: keyof typeof CHUNKED_NEEDS,
  contentType: string,
  chunks: readonly string[],
): Shape => ({
  name,
  needs: CHUNKED_NEEDS[kind],
  answer: { kind, headers: { 'content-type': contentType }, chunks },
});

const shapes: Shape[] = [
  {
    name: 'a JSON object',
    answer: { kind: 'json', value: { ok: true, text: 'naïve ☃', list: [1, null, 'x'] } },
  },
  {
    name: 'a string',
    answer: {
      kind: 'text',
      headers: { 'content-type': 'text/plain; charset=utf-8' },
      value: 'ünïcödé text',
    },
  },
  {
    name: 'a Buffer of binary bytes',
    answer: {
      kind: 'buffer',
      headers: { 'content-type': 'application/octet-stream' },
      value: binary(777),
    },
  },
  { name: '204 with no body', answer: { kind: 'empty', status: 204 } },
  {
    name: 'a 1 MiB body',
    answer: {
      kind: 'buffer',
      headers: { 'content-type': 'application/octet-stream' },
      value: binary(MIB),
    },
  },
  {
    name: 'a 1 MiB UTF-8 text body',
    answer: {
      kind: 'text',
      headers: { 'content-type': 'text/plain; charset=utf-8' },
      value: 'ü'.repeat(MIB / 2),
    },
  },
  chunked('res.write + res.end', 'write-end', 'text/plain', ['one,', 'two,', 'three']),
  chunked('a stream body', 'stream', 'text/csv', ['a,b\n', '1,2\n', '3,4\n']),
];

function expectedBody(answer: Answer): Buffer | undefined {
  switch (answer.kind) {
    case 'text':
      return Buffer.from(answer.value);
    case 'buffer':
      return answer.value;
    case 'write-end':
    case 'stream':
      return Buffer.from(answer.chunks.join(''));
    case 'empty':
      return Buffer.alloc(0);
    default:
      return undefined;
  }
}

export const answerCases: AdapterCase[] = [
  ...shapes.map(
    (shape): AdapterCase => ({
      group: 'answers',
      name: `${shape.name} is sent unchanged and replayed byte for byte`,
      ...(shape.needs ? { needs: shape.needs } : {}),
      async run(h) {
        await h.start({}, () => shape.answer);
        const first = await h.post('a1');
        const status = shape.answer.status ?? 200;
        expect(first.status).toBe(status);
        const expected = expectedBody(shape.answer);
        if (expected) expect(Buffer.compare(first.body, expected)).toBe(0);
        else
          expect(JSON.parse(first.body.toString())).toEqual(
            (shape.answer as { value: unknown }).value,
          );
        expectReplay(await h.post('a1'), first, status);
        expect(h.calls()).toBe(1);
      },
    }),
  ),
  {
    group: 'answers',
    name: 'only allow-listed headers are replayed: never Set-Cookie or WWW-Authenticate',
    async run(h) {
      const headers = {
        'set-cookie': ['session=secret; HttpOnly', 'other=1'],
        'www-authenticate': 'Basic realm="x"',
        'x-custom': 'kept',
        etag: '"v1"',
        'content-language': 'en',
        'cache-control': 'private, max-age=0',
        link: '</next>; rel="next"',
      };
      await h.start({}, () => ({ kind: 'json', headers, value: { ok: true } }));
      const first = await h.post('a2');
      const cookies = headers['set-cookie'];
      const sent = h.capabilities.repeatedHeaders === false ? cookies.slice(-1) : cookies;
      expect(first.headers['set-cookie']).toEqual(sent);
      expect(first.headers['www-authenticate']).toBe(headers['www-authenticate']);
      const again = await h.post('a2');
      expect(again.headers['set-cookie']).toBeUndefined();
      expect(again.headers['www-authenticate']).toBeUndefined();
      for (const name of [
        'x-custom',
        'etag',
        'content-language',
        'cache-control',
        'link',
      ] as const) {
        expect(again.headers[name]).toBe(headers[name]);
      }
    },
  },
];
