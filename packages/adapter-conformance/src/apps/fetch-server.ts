/** @module A small node:http server that hands each request to a fetch handler as a `Request` and writes its `Response` back (exported by `./apps/fetch`). */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Readable } from 'node:stream';

/** A fetch handler that also gets the Node request (for its socket). */
export type NodeFetchHandler = (request: Request, incoming: IncomingMessage) => Promise<Response>;

/** The `Request` for a Node request: absolute URL, every header as sent, the body as a stream. */
export function toRequest(incoming: IncomingMessage): Request {
  const headers = new Headers();
  for (let i = 0; i < incoming.rawHeaders.length; i += 2)
    headers.append(incoming.rawHeaders[i]!, incoming.rawHeaders[i + 1]!);
  const method = incoming.method ?? 'GET';
  const hasBody = method !== 'GET' && method !== 'HEAD';
  return new Request(`http://${incoming.headers.host ?? '127.0.0.1'}${incoming.url ?? '/'}`, {
    method,
    headers,
    ...(hasBody
      ? { body: Readable.toWeb(incoming) as ReadableStream<Uint8Array>, duplex: 'half' }
      : {}),
  } as RequestInit);
}

/** Writes `response` to `res`: status, headers (each Set-Cookie on its own), body streamed. */
export async function writeResponse(response: Response, res: ServerResponse): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of response.headers) if (name !== 'set-cookie') headers[name] = value;
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) headers['set-cookie'] = cookies;
  res.writeHead(response.status, headers);
  if (response.body) for await (const chunk of response.body) res.write(chunk);
  res.end();
}

/** A server for `handler`; what the handler throws is answered 500, as fetch servers do. */
export function fetchServer(handler: NodeFetchHandler): Server {
  return createServer((incoming, res) => {
    handler(toRequest(incoming), incoming)
      .catch(() => new Response('Internal Server Error', { status: 500 }))
      .then((response) => writeResponse(response, res))
      .catch(() => res.destroy());
  });
}
