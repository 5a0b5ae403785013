/**
 * @module A raw HTTP/1.1 client that writes a whole request body before it reads a byte of the
 * answer, as many clients do (curl, most HTTP libraries): it sees an answer only if the server
 * reads off what it refused instead of closing the connection under the write or leaving the body
 * unread. Over a real socket, not a framework's inject.
 */
import { connect, type Socket } from 'node:net';

/** What the sender saw. */
export interface Sent {
  /** The status of the answer (`0`: none came). */
  readonly status: number;
  /** The answer's head and body as read, in latin1. */
  readonly answer: string;
  /** The socket error the write met (`EPIPE`, `ECONNRESET`), or `stalled` when the server stopped reading. */
  readonly failure?: string;
  /** Body bytes written before the last write finished or failed. */
  readonly written: number;
  /** The open socket after the answer, for a next request; `undefined` once the server closed it. */
  readonly socket?: Socket;
}

/**
 * How long a write may wait for the server to take more bytes before the sender calls the server
 * stalled: a server that reads off takes them at once (loopback); one that stopped reading never does.
 */
const STALLED_AFTER_MS = 5_000;

/** Writes `chunks` one after the other, honouring back-pressure; settles with the failure, if any. */
function writeAll(
  socket: Socket,
  chunks: Iterable<Buffer>,
): Promise<{ failure?: string; written: number }> {
  return new Promise((resolve) => {
    let written = 0;
    const iterator = chunks[Symbol.iterator]();
    const stalled = setTimeout(() => done('stalled'), STALLED_AFTER_MS);
    const done = (failure?: string) => {
      clearTimeout(stalled);
      socket.off('error', onError).off('drain', pump);
      resolve({ failure, written });
    };
    const onError = (error: NodeJS.ErrnoException) => done(error.code ?? error.message);
    function pump() {
      stalled.refresh();
      for (let next = iterator.next(); !next.done; next = iterator.next()) {
        written += next.value.length;
        if (!socket.write(next.value)) return void socket.once('drain', pump);
      }
      socket.write(Buffer.alloc(0), () => done());
    }
    socket.on('error', onError);
    pump();
  });
}

/** True once `answer` holds a whole HTTP/1.1 answer: its head and its `content-length` bytes or last chunk. */
function isWhole(answer: string): boolean {
  const headEnd = answer.indexOf('\r\n\r\n');
  if (headEnd < 0) return false;
  const head = answer.slice(0, headEnd);
  if (/\r\ntransfer-encoding: *chunked/i.test(head)) return answer.endsWith('\r\n0\r\n\r\n');
  const length = /\r\ncontent-length: *(\d+)/i.exec(head)?.[1];
  return length !== undefined && answer.length >= headEnd + 4 + Number(length);
}

/** Reads one answer (until it is whole, or the server closes). */
function readAnswer(socket: Socket): Promise<{ answer: string; closed: boolean }> {
  return new Promise((resolve) => {
    let answer = '';
    if (socket.destroyed) return resolve({ answer, closed: true });
    const finish = (closed: boolean) => {
      socket.off('data', onData).off('end', onEnd).off('close', onEnd).off('error', onEnd);
      socket.pause();
      resolve({ answer, closed });
    };
    const onEnd = () => finish(true);
    const onData = (data: Buffer) => {
      answer += data.toString('latin1');
      if (isWhole(answer) || answer.length > 64 * 1024) finish(false);
    };
    socket.on('data', onData).on('end', onEnd).on('close', onEnd).on('error', onEnd);
    socket.resume();
  });
}

/** The request head, then `size` bytes of `a` in 64 KiB pieces, framed as chunks when `chunked`. */
function* requestOf(head: string, size: number, chunked: boolean): Generator<Buffer> {
  yield Buffer.from(head);
  const piece = Buffer.alloc(64 * 1024, 0x61);
  const frame = (part: Buffer) =>
    Buffer.concat([Buffer.from(`${part.length.toString(16)}\r\n`), part, Buffer.from('\r\n')]);
  const framed = frame(piece);
  for (let left = size; left > 0; left -= piece.length) {
    const part = left < piece.length ? piece.subarray(0, left) : piece;
    if (!chunked) yield part;
    else yield part === piece ? framed : frame(part);
  }
  if (chunked) yield Buffer.from('0\r\n\r\n');
}

/**
 * POSTs a form of `size` bytes to `path` on `origin`, writing all of it (announced by
 * `content-length`, or chunked) before reading anything, then reads the answer. With
 * `readWhileWriting`, it reads the answer as it comes instead (a sender that goes on writing
 * whatever the answer says).
 */
export async function postWholeThenRead(
  origin: string,
  path: string,
  size: number,
  options: { chunked: boolean; headers?: Record<string, string>; readWhileWriting?: boolean },
): Promise<Sent> {
  const { hostname, port } = new URL(origin);
  const socket = connect(Number(port), hostname);
  socket.pause(); // reads nothing until the body is written
  await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const framing = options.chunked ? 'transfer-encoding: chunked' : `content-length: ${size}`;
  const extra = Object.entries(options.headers ?? {}).map(
    ([name, value]) => `${name}: ${value}\r\n`,
  );
  const head = `POST ${path} HTTP/1.1\r\nhost: ${hostname}\r\ncontent-type: application/x-www-form-urlencoded\r\n${extra.join('')}${framing}\r\n\r\n`;
  const reading = options.readWhileWriting ? readAnswer(socket) : undefined;
  const { failure, written } = await writeAll(socket, requestOf(head, size, options.chunked));
  if (failure === 'stalled') socket.destroy();
  const { answer, closed } = await (reading ?? readAnswer(socket));
  const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(answer)?.[1] ?? 0);
  if (closed) socket.destroy();
  return { status, answer, failure, written, socket: closed ? undefined : socket };
}
