/**
 * @module A client that streams a large request body without holding it: one reused chunk is
 * written again and again (with backpressure) until the whole size is sent or the server answers
 * or closes the connection, whichever comes first.
 */
import { request as httpRequest, type OutgoingHttpHeaders } from 'node:http';

/** What {@link flood} sends. */
export interface FloodRequest {
  readonly port: number;
  readonly path: string;
  /** Request headers. Without `content-length` the body goes chunked (Node's default for a streamed body). */
  readonly headers?: OutgoingHttpHeaders;
  /** Body size to send at most, in bytes. */
  readonly bytes: number;
  /** Size of the one reused chunk. Defaults to 64 KiB. */
  readonly chunkBytes?: number;
}

/** How a {@link flood} ended. */
export interface FloodResult {
  /** The server's status, or `undefined` when the connection ended without an answer. */
  readonly status: number | undefined;
  /** Body bytes written before the answer (or the end of the connection) came. */
  readonly sent: number;
  /** The socket error, when the connection ended without an answer. */
  readonly error?: string;
}

/**
 * POSTs `bytes` of body to `127.0.0.1:port` as a stream, stopping at the server's answer: the
 * request is then destroyed, so nothing more is sent. Never rejects: a connection that ends
 * without an answer resolves with `status: undefined` and the error.
 */
export function flood(options: FloodRequest): Promise<FloodResult> {
  const { port, path, headers = {}, bytes, chunkBytes = 64 * 1024 } = options;
  const chunk = Buffer.alloc(chunkBytes, 0x61);
  return new Promise((resolve) => {
    let sent = 0;
    let over = false;
    let wake: (() => void) | undefined;
    const req = httpRequest({ host: '127.0.0.1', port, path, method: 'POST', headers });
    const finish = (result: FloodResult) => {
      if (over) return;
      over = true;
      wake?.();
      req.destroy();
      resolve(result);
    };
    req.on('response', (res) => {
      res.resume();
      finish({ status: res.statusCode, sent });
    });
    req.on('error', (error: NodeJS.ErrnoException) =>
      finish({ status: undefined, sent, error: error.code ?? error.message }),
    );
    req.on('close', () => finish({ status: undefined, sent, error: 'closed' }));
    req.on('drain', () => wake?.());
    const pump = async () => {
      while (!over && sent < bytes) {
        const piece = bytes - sent >= chunk.length ? chunk : chunk.subarray(0, bytes - sent);
        sent += piece.length;
        if (!req.write(piece)) await new Promise<void>((resume) => (wake = resume));
        wake = undefined;
      }
      if (!over) req.end();
    };
    void pump();
  });
}
