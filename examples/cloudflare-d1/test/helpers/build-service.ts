/**
 * The build service the Workers call (BUILD_HOOK_URL), on 127.0.0.1: it counts the builds asked
 * for each commit and answers as the test tells it to: at once, after a failure, or once released.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** How the service answers requests for one commit. */
export type Behaviour = 'build' | 'fail-first' | 'hold';

/** The service, listening. */
export interface BuildService {
  readonly url: string;
  /** How `commit` is answered (default: `build`). */
  behave(commit: string, behaviour: Behaviour): void;
  /** How many builds of `commit` were asked for. */
  requests(commit: string): number;
  /** Resolves once a held request for `commit` has arrived. */
  held(commit: string): Promise<void>;
  /** Answers the held request for `commit`. */
  release(commit: string): void;
  close(): Promise<void>;
}

async function bodyOf(request: IncomingMessage): Promise<{ commit: string }> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as { commit: string };
}

/** Starts the service on a free port. */
export async function startBuildService(): Promise<BuildService> {
  const behaviours = new Map<string, Behaviour>();
  const counts = new Map<string, number>();
  const arrivals = new Map<string, () => void>();
  const arrived = new Map<string, Promise<void>>();
  const releases = new Map<string, () => void>();
  const arrival = (commit: string) => {
    let promise = arrived.get(commit);
    if (!promise) {
      promise = new Promise<void>((resolve) => arrivals.set(commit, resolve));
      arrived.set(commit, promise);
    }
    return promise;
  };
  const answer = (response: ServerResponse, commit: string, n: number) =>
    response
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ build: `build-${commit}-${n}` }));

  const server = createServer(async (request, response) => {
    const { commit } = await bodyOf(request);
    const n = (counts.get(commit) ?? 0) + 1;
    counts.set(commit, n);
    const behaviour = behaviours.get(commit) ?? 'build';
    if (behaviour === 'fail-first' && n === 1) {
      response.writeHead(503).end();
      return;
    }
    if (behaviour === 'hold') {
      void arrival(commit);
      arrivals.get(commit)?.();
      await new Promise<void>((resolve) => releases.set(commit, resolve));
    }
    answer(response, commit, n);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/build`,
    behave: (commit, behaviour) => void behaviours.set(commit, behaviour),
    requests: (commit) => counts.get(commit) ?? 0,
    held: arrival,
    release(commit) {
      const release = releases.get(commit);
      if (!release) throw new Error(`no request for ${commit} is held`);
      release();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const release of releases.values()) release();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
