/** @module A raw HTTP client for the hostile-input table: exact bytes and headers out, status, headers and bytes back. */
import { request } from 'node:http';

/** One request as the hostile table sends it: headers as given (a list repeats the header), body bytes as they are. */
export interface RawRequest {
  readonly headers: Readonly<Record<string, string | readonly string[]>>;
  readonly body: Buffer;
  /** Defaults to `POST`. */
  readonly method?: string;
}

/** What came back. */
export interface RawAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: Buffer;
}

/**
 * Sends `raw` (a POST unless it names its method) to `http://127.0.0.1:<port><path>` on a fresh connection and resolves with the
 * answer. Nothing is added but `Host`, `Content-Length` and `Connection: close`: no content-type
 * unless the case sets one. Rejects only when no answer arrives (socket error).
 */
export function sendRaw(port: number, path: string, raw: RawRequest): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | string[]> = {
      connection: 'close',
      'content-length': String(raw.body.length),
    };
    for (const [name, value] of Object.entries(raw.headers))
      headers[name] = typeof value === 'string' ? value : [...value];
    const req = request(
      { host: '127.0.0.1', port, path, method: raw.method ?? 'POST', headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks),
          }),
        );
        res.on('error', reject);
      },
    );
    // A server that answers early (431, 413) may close before the body is written: the answer counts.
    req.on('error', reject);
    req.end(raw.body);
  });
}
