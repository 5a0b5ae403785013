/**
 * @module A request body read under a byte limit on node:http, and the rest of a refused one read
 * off within core's bound (what Koa's rawBodyParser and the dashboard's Node mounts share). An
 * answer sent before the body was read (a 413) reaches a sender that writes its whole body before
 * reading only if the server takes that body: closing the connection under the write loses the
 * answer (EPIPE, a reset), leaving the body unread stalls the write. So the rest is read off and
 * dropped, bounded as on the Web side (`./web-discard`), and the connection closed past the bound.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { REQUEST_TOO_LARGE } from '../http/request-body';
import {
  DISCARD_AFTER_ANSWER_BYTES,
  DISCARD_AFTER_ANSWER_MS,
  DISCARD_IDLE_MS,
} from './web-discard';

/**
 * After an answer sent before its body was read (a 413), discards what is left of `req`'s body,
 * so that a client still writing can read the answer, within core's bounds for such an answer:
 * {@link DISCARD_AFTER_ANSWER_BYTES} (16 MiB), a pause of {@link DISCARD_IDLE_MS} (1 s) and
 * {@link DISCARD_AFTER_ANSWER_MS} (10 s) in all. Without a bound, an unauthenticated client could
 * make the server read an endless body at full speed. A body that ends inside the bounds leaves
 * the connection open for the next request; past one, the socket is closed once `res` is sent (or
 * at once, if it never is). Call it before the answer goes out, and send that answer without
 * `connection: close` (Node would close the socket under the write when the answer ends).
 * @example
 * if (Number(req.headers['content-length']) > limit) { discardRest(req, res); return sendRecord(res, requestTooLarge(limit)); }
 */
export function discardRest(req: IncomingMessage, res: ServerResponse): void {
  let discarded = 0;
  const close = () => {
    stop();
    const end = () => req.socket?.destroySoon();
    if (res.writableFinished || res.destroyed) end();
    else res.once('close', end);
  };
  const total = setTimeout(close, DISCARD_AFTER_ANSWER_MS).unref();
  const idle = setTimeout(close, DISCARD_IDLE_MS).unref();
  const onData = (chunk: Buffer) => {
    idle.refresh();
    discarded += chunk.length;
    if (discarded > DISCARD_AFTER_ANSWER_BYTES) close();
  };
  const stop = () => {
    clearTimeout(total);
    clearTimeout(idle);
    req.off('data', onData).off('end', stop).off('close', stop);
  };
  req.on('data', onData).on('end', stop).on('close', stop);
  req.resume();
}

/**
 * Reads `req` to its end, keeping at most `limit` bytes: past them it keeps nothing more, starts
 * {@link discardRest} on the rest (the connection carries the 413, then closes if the body goes
 * on) and resolves {@link REQUEST_TOO_LARGE}. Rejects when `req` fails or its connection closes
 * before the body ended.
 * @example
 * const bytes = await readNodeBody(req, res, limit);
 * if (bytes === REQUEST_TOO_LARGE) return sendRecord(res, requestTooLarge(limit));
 */
export function readNodeBody(
  req: IncomingMessage,
  res: ServerResponse,
  limit: number,
): Promise<Buffer | typeof REQUEST_TOO_LARGE> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = () => {
      req.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      settle();
      discardRest(req, res);
      resolve(REQUEST_TOO_LARGE);
    };
    const onEnd = () => {
      settle();
      resolve(Buffer.concat(chunks, size));
    };
    const onError = (error: Error) => {
      settle();
      reject(error);
    };
    const onClose = () => onError(new Error('the connection closed before the body ended'));
    req.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
    req.resume();
  });
}
