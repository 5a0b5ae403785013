/** A local HTTP receiver for the alert watcher's tests: counts the posts, and answers them, fails them or never answers. */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export async function startAlertReceiver(behaviour: 'ok' | 'fail' | 'hang') {
  const bodies: string[] = [];
  const hung = new Set<ServerResponse>();
  const waiting: Array<() => void> = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8');
    });
    req.on('end', () => {
      bodies.push(body);
      for (const resolve of waiting.splice(0)) resolve();
      if (behaviour === 'ok') res.end('ok');
      else if (behaviour === 'fail') res.writeHead(500).end('internal error');
      else hung.add(res); // never answered
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/alerts`,
    bodies,
    /** The alerts posted, as `state id`. */
    alerts: () =>
      bodies.map((b) => {
        const { data } = JSON.parse(b) as { data: { state: string; id: string } };
        return `${data.state} ${data.id}`;
      }),
    /** Requests received and never answered. */
    get open() {
      return [...hung].filter((res) => !res.destroyed && !res.writableEnded).length;
    },
    nextPost: () => new Promise<void>((resolve) => waiting.push(resolve)),
    async close() {
      for (const res of hung) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
