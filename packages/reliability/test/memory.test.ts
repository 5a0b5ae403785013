/**
 * Request bodies cannot run the server out of memory: four concurrent unsigned 100 MB chunked
 * POSTs at every adapter's guarded endpoint and inbox endpoint (Express, Fastify, Koa, fetch
 * over node:http, Hono, NestJS on both platforms), each on a real server in a child process
 * whose resident memory is sampled. Each request is refused (413 past the body limit, or 401 for
 * the missing signature) while its upload is still going, and the server's RSS grows by less
 * than 64 MB. The client streams one reused chunk and stops at the answer: the test itself
 * never holds the body either.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';
import { type FloodResult, flood } from '@webhook-idempotency/adapter-conformance';
import type { Endpoint } from './helpers/memory-apps';

const MB = 1_000_000;
const BODY_BYTES = 100 * MB;
/**
 * Behind Express's body-parser (Express, Nest on Express) a refused body is read off to its end
 * before the 413, so each of those requests moves its whole size over loopback: 16 MB each in
 * the default run (still 160 times the parser's limit), the full 100 MB in the proof lane.
 */
const DRAINED_BYTES = process.env.WI_PROOF === '1' ? BODY_BYTES : 16 * MB;
const CONCURRENT = 4;
const MAX_GROWTH = 64 * 1024 * 1024;

const APPS = join(__dirname, 'helpers', 'memory-apps.ts');
const NEST = require.resolve('@webhook-idempotency/adapter-conformance/apps/nestjs-memory');
/** Two hosting children (one start-up each): the five adapters of memory-apps.ts, and NestJS. */
const HOSTS: ReadonlyArray<{
  host: string;
  module: string;
  adapters: ReadonlyArray<[name: string, factory: string]>;
}> = [
  {
    host: 'express, fastify, koa, fetch, hono',
    module: APPS,
    adapters: [
      ['express', 'expressApps'],
      ['fastify', 'fastifyApps'],
      ['koa', 'koaApps'],
      ['fetch (node:http)', 'fetchApps'],
      ['hono (@hono/node-server)', 'honoApps'],
    ],
  },
  {
    host: 'nestjs',
    module: NEST,
    adapters: [['nestjs (express and fastify platforms)', 'nestApps']],
  },
];

type Reply = {
  type: string;
  rss?: number;
  endpoints?: Array<Endpoint & { factory: string }>;
  error?: string;
};

/** The hosting child, and a way to ask it something and wait for the answer of that type. */
function host(module: string, factory: string) {
  const child: ChildProcess = fork(
    join(__dirname, 'helpers', 'memory-host.ts'),
    [module, factory],
    {
      // Nest 12 ships ES modules only: Node before 20.19 requires them with this flag.
      execArgv: [
        '--expose-gc',
        '--experimental-require-module',
        '--no-warnings',
        '-r',
        require.resolve('@webhook-idempotency/test-support/register'),
      ],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    },
  );
  const next = (type: string) =>
    new Promise<Reply>((resolve, reject) => {
      const onMessage = (message: Reply) => {
        if (message.type === 'error') reject(new Error(message.error));
        if (message.type !== type) return;
        child.off('message', onMessage);
        child.off('exit', onExit);
        resolve(message);
      };
      const onExit = (code: number | null) => reject(new Error(`the host exited with ${code}`));
      child.on('message', onMessage);
      child.once('exit', onExit);
    });
  const ask = (type: string) => {
    const reply = next(type);
    child.send({ type });
    return reply;
  };
  return { child, next, ask };
}

const unsigned = { 'content-type': 'application/json' };

describe.each(HOSTS)(
  'memory under 100 MB unsigned bodies, one server process: $host',
  ({ module, adapters }) => {
    let child: ChildProcess | undefined;
    let ask: (type: string) => Promise<Reply>;
    let all: Array<Endpoint & { factory: string }> = [];
    beforeAll(async () => {
      const started = host(module, adapters.map(([, factory]) => factory).join(','));
      child = started.child;
      ask = started.ask;
      all = (await started.next('ready')).endpoints ?? [];
    });
    afterAll(() => {
      child?.kill('SIGKILL');
    });

    it.each(adapters)(
      `%s: refuses ${CONCURRENT} concurrent ${BODY_BYTES / MB} MB chunked bodies per endpoint (${DRAINED_BYTES / MB} MB where body-parser drains them) with 413 or 401, RSS growth under 64 MB`,
      async (_name, factory) => {
        const endpoints = all.filter((endpoint) => endpoint.factory === factory);
        expect(endpoints.length).toBeGreaterThan(0);
        // Warm every route (lazy initialisation is not what is measured): a small body of "a"s is
        // refused too, 400 where a JSON parser reads it, else 401 (unsigned).
        for (const { port, path } of endpoints)
          expect([400, 401]).toContain(
            (await flood({ port, path, headers: unsigned, bytes: 100 })).status,
          );
        const { rss: baseline = 0 } = await ask('baseline');
        const results: Array<FloodResult & { endpoint: Endpoint }> = [];
        for (const endpoint of endpoints) {
          const { port, path, drainsBody } = endpoint;
          const bytes = drainsBody ? DRAINED_BYTES : BODY_BYTES;
          const answers = await Promise.all(
            Array.from({ length: CONCURRENT }, () =>
              flood({ port, path, headers: unsigned, bytes }),
            ),
          );
          for (const answer of answers) results.push({ ...answer, endpoint });
        }
        const { rss: peak = 0 } = await ask('peak');
        for (const { endpoint, status, sent, error } of results) {
          const reset = endpoint.mayReset === true && ['ECONNRESET', 'EPIPE'].includes(error ?? '');
          expect({ endpoint: endpoint.name, status, error }).toEqual({
            endpoint: endpoint.name,
            status: reset || [413, 401].includes(status ?? 0) ? status : '413 or 401',
            error: reset ? error : undefined,
          });
          // Answered while the upload was still going: the server did not take the body first
          // (except behind Express's body-parser, which reads a refused body off, discarding it).
          if (!endpoint.drainsBody) expect(sent).toBeLessThan(BODY_BYTES / 2);
        }
        expect(peak - baseline).toBeLessThan(MAX_GROWTH);
      },
    );
  },
);
