/** A local HTTP receiver for alert tests: counts the posts, and answers them, fails them or never answers. */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Post {
  readonly headers: IncomingMessage['headers'];
  readonly body: Buffer;
}

export type Behaviour = 'ok' | 'fail' | 'hang' | 'fail-endless';

/** Starts a receiver on a free loopback port; `behaviour` may change between posts. */
export async function startReceiver(initial: Behaviour = 'ok') {
  const posts: Post[] = [];
  const hung = new Set<ServerResponse>();
  let behaviour = initial;
  let arrived: (() => void) | undefined;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      posts.push({ headers: req.headers, body: Buffer.concat(chunks) });
      arrived?.();
      if (behaviour === 'ok') res.end('ok');
      else if (behaviour === 'fail') res.writeHead(500).end('internal error');
      else if (behaviour === 'fail-endless') {
        // A refusal whose body never ends: the sender must read only a little of it.
        res.writeHead(500, { 'content-type': 'text/plain' });
        const drip = setInterval(() => res.write('x'.repeat(4096)), 5);
        res.on('close', () => clearInterval(drip));
      } else hung.add(res); // never answered
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/alerts`,
    posts,
    /** Requests received and not answered (a hung receiver's). */
    get open() {
      return [...hung].filter((res) => !res.destroyed && !res.writableEnded).length;
    },
    set(next: Behaviour) {
      behaviour = next;
    },
    /** Resolves when the next post has arrived. */
    nextPost(): Promise<void> {
      return new Promise((resolve) => {
        arrived = () => {
          arrived = undefined;
          resolve();
        };
      });
    },
    async close() {
      for (const res of hung) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export const json = (post: Post) =>
  JSON.parse(post.body.toString('utf8')) as Record<string, unknown>;
