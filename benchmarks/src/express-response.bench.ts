/**
 * @module What one property access costs on the response object a route handler gets, on Express
 * and on plain node:http, in one process. Express sets the prototype of every request's `req` and
 * `res` (`Object.setPrototypeOf`), which leaves each response with a hidden class of its own: V8's
 * inline caches never see the same one twice, so every read and write of a property goes the slow
 * way. Why the held response (core's transport/node-held) reads the response as few times as it can
 * and writes it only where it must. Sequential requests over keep-alive on 127.0.0.1; each access is
 * timed alone with `process.hrtime.bigint()`, and the timer's own cost (an empty pair of reads) is
 * shown beside it.
 * `pnpm --filter @webhook-idempotency/benchmarks run bench:express-response [requests]`.
 */
import {
  createServer,
  request as httpRequest,
  Agent,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';

/** The accesses timed, one of them per request (in turn), on the handler's response. */
const ACCESSES = {
  'timer alone': (_res: ServerResponse) => undefined,
  'read statusCode': (res: ServerResponse) => res.statusCode,
  'write statusCode (same value)': (res: ServerResponse) => {
    res.statusCode = 200;
  },
  'add an own property': (res: ServerResponse) => {
    (res as ServerResponse & { benchMark?: number }).benchMark = 1;
  },
} as const;
type Access = keyof typeof ACCESSES;
const NAMES = Object.keys(ACCESSES) as Access[];

/** Nanoseconds per access, by access. */
type Timings = Record<Access, number[]>;

function timings(): Timings {
  return Object.fromEntries(NAMES.map((name) => [name, []])) as unknown as Timings;
}

/** Times this request's access on `res` into `into` (the accesses taken in turn, one per request). */
function timeOne(res: ServerResponse, into: Timings, index: number): void {
  const name = NAMES[index % NAMES.length] as Access;
  const access = ACCESSES[name];
  const started = process.hrtime.bigint();
  access(res);
  const ended = process.hrtime.bigint();
  into[name].push(Number(ended - started));
}

async function listen(server: ReturnType<typeof createServer>): Promise<number> {
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return (server.address() as AddressInfo).port;
}

/** `n` sequential POSTs to `port` over one kept-alive connection. */
async function drive(port: number, n: number): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  for (let i = 0; i < n; i++) {
    await new Promise<void>((resolve, reject) => {
      const sent = httpRequest(
        { host: '127.0.0.1', port, path: '/hook', method: 'POST', agent },
        (answer: IncomingMessage) => {
          answer.resume();
          answer.on('end', resolve);
        },
      );
      sent.on('error', reject);
      sent.end();
    });
  }
  agent.destroy();
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1] ?? Number.NaN;
};

/** Medians, ns per access, on node:http and on Express, of `n` requests each. */
export async function measureExpressResponse(
  n: number,
): Promise<Record<Access, { plain: number; express: number }>> {
  const plain = timings();
  const onExpress = timings();
  let plainCount = 0;
  let expressCount = 0;
  const plainServer = createServer((req, res) => {
    timeOne(res, plain, plainCount++);
    req.resume();
    req.on('end', () => res.end('{}'));
  });
  const app = express();
  app.post('/hook', (_req, res) => {
    timeOne(res, onExpress, expressCount++);
    res.json({});
  });
  const expressServer = createServer(app);
  const ports = [await listen(plainServer), await listen(expressServer)];
  // Warm up both, then measure both in alternating halves so that the host's drift hits both alike.
  for (const port of ports) await drive(port, 4_000);
  for (const into of [plain, onExpress]) for (const name of NAMES) into[name].length = 0;
  for (let half = 0; half < 2; half++) for (const port of ports) await drive(port, n / 2);
  plainServer.close();
  expressServer.close();
  return Object.fromEntries(
    NAMES.map((name) => [name, { plain: median(plain[name]), express: median(onExpress[name]) }]),
  ) as Record<Access, { plain: number; express: number }>;
}

/** The report's section: what it measures, and the table. */
export async function expressResponseReport(
  n: number,
  log: (line?: string) => void,
): Promise<void> {
  const medians = await measureExpressResponse(n);
  const more = (name: Access): string => {
    const { plain, express } = medians[name];
    return `${((express - plain) / 1000).toFixed(1)} µs`;
  };
  log('### One property access on an Express response');
  log();
  log(
    `Express sets the prototype of every request's \`req\` and \`res\` (\`Object.setPrototypeOf\`), which leaves each response with a hidden class of its own: V8's inline caches never hit on it, so every read and every write of one of its properties takes the slow path. \`bench:express-response\` times one access per request inside the route handler, on a plain node:http server and on Express in the same process (ns, medians of ${(n / NAMES.length).toLocaleString('en')} each, measured ${new Date().toISOString().slice(0, 10)} on Node ${process.version}; the first row is the timer alone).`,
  );
  log();
  log('| access | node:http | Express |');
  log('|---|---|---|');
  for (const name of NAMES)
    log(`| ${name} | ${medians[name].plain.toFixed(0)} | ${medians[name].express.toFixed(0)} |`);
  log();
  log(
    `So on Express a write on the response costs ${more('write statusCode (same value)')} more than on node:http, and a read ${more('read statusCode')} more. The hold makes five writes it cannot avoid: the handler's context on \`req.idempotency\`, the hold's state, and its \`writeHead\`, \`write\` and \`end\` in place of the response's own (never on a shared prototype). It reads the response once where it can: the flush sends the status and headers the record read, and with nothing wrapping \`writeHead\` above the hold, the handler's implicit head does not write \`statusCode\` again.`,
  );
}

if (require.main === module)
  void expressResponseReport(Number(process.argv[2] ?? 40_000), (line = '') => console.log(line));
