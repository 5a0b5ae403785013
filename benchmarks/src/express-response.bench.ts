/**
 * @module What one property access costs on the response object a route handler gets, on Express
 * and on plain node:http. Express sets the prototype of every request's `req` and `res`
 * (`Object.setPrototypeOf`), after which no two responses share a hidden class, so V8's inline
 * caches miss on every read and write of their properties. Why the held response (core's
 * transport/node-held) touches a response as little as it can. Each server runs in a process of
 * its own (the timed functions' type feedback is then that server's alone), one after the other
 * in two alternating halves, with sequential requests over keep-alive on 127.0.0.1; each access
 * is timed alone with `process.hrtime.bigint()`, beside the timer's own cost.
 * `pnpm --filter @webhook-idempotency/benchmarks run bench:express-response [requests]`.
 */
import { execFileSync } from 'node:child_process';
import {
  Agent,
  createServer,
  request as httpRequest,
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
type Kind = 'node:http' | 'Express';
const WARMUP = 4_000;

/** Nanoseconds per access, by access. */
type Timings = Record<Access, number[]>;
const noTimings = (): Timings =>
  Object.fromEntries(NAMES.map((name) => [name, []])) as unknown as Timings;

/** Times this request's access on `res` into `into` (the accesses taken in turn, one per request). */
function timeOne(res: ServerResponse, into: Timings, index: number): void {
  const name = NAMES[index % NAMES.length] as Access;
  const access = ACCESSES[name];
  const started = process.hrtime.bigint();
  access(res);
  const ended = process.hrtime.bigint();
  into[name].push(Number(ended - started));
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

/** In this process: `kind`'s server, warmed up, then `n` requests timed; the timings on stdout. */
async function measureHere(kind: Kind, n: number): Promise<void> {
  const into = noTimings();
  let count = 0;
  const server =
    kind === 'Express'
      ? createServer(
          express().post('/hook', (_req, res) => {
            timeOne(res, into, count++);
            res.json({});
          }),
        )
      : createServer((req, res) => {
          timeOne(res, into, count++);
          req.resume();
          req.on('end', () => res.end('{}'));
        });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  await drive(port, WARMUP);
  for (const name of NAMES) into[name].length = 0;
  await drive(port, n);
  server.close();
  process.stdout.write(JSON.stringify(into));
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1] ?? Number.NaN;
};

/** Each kind's timings over `n` requests, in two halves run alternately, each in a new process. */
function measure(n: number): Record<Kind, Timings> {
  const all: Record<Kind, Timings> = {
    'node:http': noTimings(),
    Express: noTimings(),
  };
  for (let half = 0; half < 2; half++)
    for (const kind of Object.keys(all) as Kind[]) {
      const args = [...process.execArgv, __filename, 'child', kind, String(n / 2)];
      const got = JSON.parse(execFileSync(process.execPath, args, { encoding: 'utf8' })) as Timings;
      for (const name of NAMES) all[kind][name].push(...got[name]);
    }
  return all;
}

/** The report's section: what it measures, the table, and what it means for the hold. */
export function expressResponseReport(n: number, log: (line?: string) => void): void {
  if (!Number.isInteger(n) || n < 8 || n % 8 !== 0)
    throw new Error(`bench:express-response: requests must be a multiple of 8, got ${n}`);
  const timings = measure(n);
  const at = (kind: Kind, name: Access) => median(timings[kind][name]);
  // What an access costs beyond the timer, on Express against node:http, in µs.
  const more = (name: Access): string => {
    const express = at('Express', name) - at('Express', 'timer alone');
    const plain = at('node:http', name) - at('node:http', 'timer alone');
    return `${((express - plain) / 1000).toFixed(1)} µs`;
  };
  log('### One property access on an Express response');
  log();
  log(
    `Express sets the prototype of every request's \`req\` and \`res\` (\`Object.setPrototypeOf\`), after which no two responses share a hidden class, so V8's inline caches miss on every read and write of their properties. \`bench:express-response\` times one access per request inside the route handler, on a plain node:http server and on Express, each in a process of its own (ns, medians of ${timings.Express['timer alone'].length.toLocaleString('en')} accesses each, measured ${new Date().toISOString().slice(0, 10)} on Node ${process.version}; the first row is the timer alone).`,
  );
  log();
  log('| access | node:http | Express |');
  log('|---|---|---|');
  for (const name of NAMES)
    log(`| ${name} | ${at('node:http', name).toFixed(0)} | ${at('Express', name).toFixed(0)} |`);
  log();
  log(
    `So on Express, the timer's own cost taken off, a write on the response costs ${more('write statusCode (same value)')} more than on node:http, and a read ${more('read statusCode')} more. Express sets \`req\`'s prototype the same way. What the held response does about it: per first delivery it writes the context on \`req.idempotency\`, its own state on the response, and its \`writeHead\`, \`write\` and \`end\` in place of the response's (never on a shared prototype); it no longer writes \`statusCode\` again for the handler's implicit head when nothing above it wraps \`writeHead\`, and its flush reads the status and the headers once each.`,
  );
}

if (require.main === module) {
  const [mode, kind, count] = process.argv.slice(2);
  if (mode === 'child') void measureHere(kind as Kind, Number(count));
  else expressResponseReport(Number(mode ?? 40_000), (line = '') => console.log(line));
}
