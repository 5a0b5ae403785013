/**
 * @module Where a guarded request's server time goes: one scenario's server runs under
 * `--cpu-prof` while the load generator drives it, and the samples are summed by where their
 * code comes from. The server is the ahead-of-time bundle, whose `// <path>` module markers
 * (esbuild's) map each bundled line back to its package: ours (per package), the framework and
 * its dependencies, Node's own modules, the garbage collector.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { bundle, pinned } from './bundle';
import type { Framework, ServerMode } from './server';

interface CallFrame {
  readonly functionName: string;
  readonly url: string;
  readonly lineNumber: number;
}
interface Profile {
  readonly nodes: ReadonlyArray<{ readonly id: number; readonly callFrame: CallFrame }>;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

export interface ProfileSummary {
  readonly scenario: string;
  /** Requests answered while profiled. */
  readonly requests: number;
  /** Busy (non-idle) profiled time, µs. */
  readonly busyUs: number;
  /** Share of the busy (non-idle) samples per origin, largest first. */
  readonly origins: ReadonlyArray<{ readonly origin: string; readonly share: number }>;
  /** Our functions with the most self time, as shares of the busy samples. */
  readonly ours: ReadonlyArray<{ readonly fn: string; readonly share: number }>;
}

/** Bundled line (0-based) → the module it came from, from esbuild's `// path` markers. */
function moduleLines(bundlePath: string): (line: number) => string {
  const starts: Array<[number, string]> = [];
  readFileSync(bundlePath, 'utf8')
    .split('\n')
    .forEach((text, line) => {
      const marker = /^\/\/ (\.\.\/.*\.(?:[cm]?[jt]s|json))$/.exec(text);
      if (marker) starts.push([line, marker[1]!]);
    });
  return (line) => {
    let lo = 0;
    let hi = starts.length - 1;
    let found = '(bundle prelude)';
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (starts[mid]![0] <= line) {
        found = starts[mid]![1];
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found;
  };
}

/** A module path's origin: `ours: core`, a package name, or the path itself. */
function originOf(path: string): string {
  const ours = /\/packages\/([^/]+)\/src\//.exec(path);
  if (ours) return `ours: ${ours[1]}`;
  const pkg = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/.exec(path);
  return pkg ? pkg[1]! : path;
}

/** Profiles `framework` in `mode` under first-delivery load for `seconds`. */
export async function profileScenario(
  framework: Framework,
  mode: ServerMode,
  seconds = 5,
): Promise<ProfileSummary> {
  const serverBundle = bundle('server');
  const dir = mkdtempSync(join(tmpdir(), 'wi-bench-prof-'));
  const [command, args] = pinned(0, [
    '--cpu-prof',
    `--cpu-prof-dir=${dir}`,
    serverBundle,
    framework,
    mode,
  ]);
  const server: ChildProcess = spawn(command, args, {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  try {
    const port = await new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.on('message', (message: { port?: number }) => {
        if (message.port) resolve(message.port);
      });
    });
    let n = 0;
    const load = await autocannon({
      url: `http://127.0.0.1:${port}/hook`,
      method: 'POST',
      connections: 50,
      duration: seconds,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'evt', amount: 100 }),
      requests: [
        {
          setupRequest: (request) => ({
            ...request,
            headers: { ...request.headers, 'x-event-id': `prof-${++n}` },
          }),
        },
      ],
    });
    const exited = new Promise((resolve) => server.once('exit', resolve));
    server.send('stop');
    await exited;
    const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
    if (!file) throw new Error('the server wrote no CPU profile');
    return summarize(
      mode === 'bare' ? `${framework}, bare route` : `${framework}, ${mode}, first`,
      load.requests.total,
      JSON.parse(readFileSync(join(dir, file), 'utf8')) as Profile,
      serverBundle,
    );
  } finally {
    if (server.exitCode === null) server.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}

function summarize(
  scenario: string,
  requests: number,
  profile: Profile,
  bundlePath: string,
): ProfileSummary {
  const lineModule = moduleLines(bundlePath);
  const frames = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const byOrigin = new Map<string, number>();
  const byOurFunction = new Map<string, number>();
  let busy = 0;
  profile.samples.forEach((id, i) => {
    const frame = frames.get(id)!;
    const dt = profile.timeDeltas[i] ?? 0;
    let origin: string;
    if (frame.functionName === '(idle)') return;
    if (frame.functionName === '(garbage collector)') origin = 'garbage collector';
    else if (frame.url === '' || frame.url.startsWith('node:'))
      origin =
        frame.functionName === '(program)' ? 'V8 / native (program)' : 'Node.js core and native';
    else if (frame.url.endsWith(bundlePath) || frame.url.endsWith('server.js')) {
      const path = lineModule(frame.lineNumber);
      origin = originOf(path);
      if (origin.startsWith('ours: ')) {
        const fn = `${frame.functionName || '(anonymous)'} (${path.replace(/^.*\/packages\//, '')})`;
        byOurFunction.set(fn, (byOurFunction.get(fn) ?? 0) + dt);
      }
    } else origin = frame.url;
    byOrigin.set(origin, (byOrigin.get(origin) ?? 0) + dt);
    busy += dt;
  });
  const shares = <K extends string>(map: Map<string, number>, key: K) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .map(
        ([name, t]) =>
          ({ [key]: name, share: t / busy }) as { [P in K]: string } & { share: number },
      );
  return {
    scenario,
    requests,
    busyUs: busy,
    origins: shares(byOrigin, 'origin'),
    ours: shares(byOurFunction, 'fn').slice(0, 10),
  };
}

/**
 * The report's section: per origin, server µs per request on the bare route and guarded, and
 * the difference, so the time the guard adds is located (including what it makes Node and the
 * garbage collector do).
 */
export function profileReport(
  bare: ProfileSummary,
  guarded: ProfileSummary,
  log: (line?: string) => void,
): void {
  const perRequest = (summary: ProfileSummary, origin: string) =>
    ((summary.origins.find((o) => o.origin === origin)?.share ?? 0) * summary.busyUs) /
    summary.requests;
  const origins = [...new Set([...guarded.origins, ...bare.origins].map((o) => o.origin))];
  const rows = origins
    .map((origin) => ({
      origin,
      bare: perRequest(bare, origin),
      guarded: perRequest(guarded, origin),
    }))
    .filter((r) => r.guarded >= 0.5 || r.bare >= 0.5)
    .sort((a, b) => b.guarded - b.bare - (a.guarded - a.bare));
  const total = (summary: ProfileSummary) => summary.busyUs / summary.requests;
  log(
    `### Where the added time goes: ${guarded.scenario} against ${bare.scenario} (CPU profiles of the server, µs per request)`,
  );
  log();
  log('| origin | bare | guarded | added |');
  log('|---|---|---|---|');
  for (const r of rows)
    log(
      `| ${r.origin} | ${r.bare.toFixed(1)} | ${r.guarded.toFixed(1)} | ${(r.guarded - r.bare).toFixed(1)} |`,
    );
  log(
    `| **all busy time** | ${total(bare).toFixed(1)} | ${total(guarded).toFixed(1)} | ${(total(guarded) - total(bare)).toFixed(1)} |`,
  );
  log();
  log('| our function (self time) | µs per request |');
  log('|---|---|');
  for (const f of guarded.ours)
    log(`| ${f.fn} | ${((f.share * guarded.busyUs) / guarded.requests).toFixed(2)} |`);
}

if (require.main === module) {
  const [framework = 'express', mode = 'memory'] = process.argv.slice(2) as [Framework, ServerMode];
  void (async () => {
    const bare = await profileScenario(framework, 'bare');
    const guarded = await profileScenario(framework, mode);
    profileReport(bare, guarded, console.log);
  })();
}
