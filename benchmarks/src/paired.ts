/**
 * @module Paired windows: the servers a goal compares (a framework's bare route, each build's
 * guarded route, the peer) are started once, warmed up, and kept running side by side on core 0;
 * then, in every pair, each is loaded in turn for one short window, saturated and then paced, and
 * what a guarded route adds is its CPU per request minus the bare route's in the same pair. A
 * server started afresh for every sample measured a new heap, a new JIT state and whatever the
 * host was doing in that minute: on the shared machine the peer's added µs on Express ranged from
 * −116 to 178 across five samples. Windows a few seconds apart on warm servers share the host's
 * state, and the median of a dozen pairs moved by a few µs from one run to the next.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { pinned } from './bundle';
import { ask, loadRoute, median } from './http.bench';
import type { Framework, ServerMode } from './server';

/** Pairs per framework (`BENCH_PAIRS`), and each window's length in seconds. */
export const PAIRS = Number(process.env.BENCH_PAIRS ?? 12);
const WINDOW_S = 1;
const WARMUP_S = 2;

/** One window on one server: its CPU per request and the rate it answered at (a window with any answer not a 2xx throws). */
export interface WindowSample {
  readonly cpuUsPerRequest: number;
  readonly rps: number;
}

/** A benchmark server kept running across windows. */
export class LiveServer {
  private windows = 0;

  private constructor(
    readonly name: string,
    private readonly child: ChildProcess,
    private readonly port: number,
    /** `none`: the bare route, no event id; `unique`: a fresh event id per request (first deliveries). */
    private readonly ids: 'none' | 'unique',
  ) {}

  /** Starts `serverBundle` for `framework` in `mode`, pinned to core 0, once it listens. */
  static async start(
    name: string,
    serverBundle: string,
    framework: Framework,
    mode: ServerMode,
  ): Promise<LiveServer> {
    const [command, args] = pinned(0, [serverBundle, framework, mode]);
    const child = spawn(command, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const port = await ask<number>(child, '', 'port');
    return new LiveServer(name, child, port, mode === 'bare' ? 'none' : 'unique');
  }

  /** One window of `seconds` at 50 connections, as fast as the server answers or paced at `rate` req/s in all. */
  async load(seconds: number, rate?: number): Promise<WindowSample> {
    const prefix = `${this.name}-${this.windows++}-`;
    let counter = 0;
    const before = await ask<NodeJS.CpuUsage>(this.child, 'cpu', 'cpu');
    const eventId = this.ids === 'none' ? undefined : () => `${prefix}${counter++}`;
    const result = await loadRoute(this.port, { duration: seconds }, eventId, rate);
    const after = await ask<NodeJS.CpuUsage>(this.child, 'cpu', 'cpu');
    if (result.non2xx > 0 || result.errors > 0)
      throw new Error(`${this.name}: ${result.non2xx} non-2xx, ${result.errors} errors`);
    const cpuUs = after.user - before.user + (after.system - before.system);
    return {
      cpuUsPerRequest: cpuUs / Math.max(1, result.requests.total),
      rps: result.requests.total / seconds,
    };
  }

  stop(): void {
    if (this.child.connected) this.child.send('stop');
  }
}

/** Each server's windows of one framework, by the server's name, in pair order. */
export interface PairedRun {
  /** The paced windows' rate, req/s. */
  readonly rate: number;
  readonly saturated: ReadonlyMap<string, WindowSample[]>;
  readonly paced: ReadonlyMap<string, WindowSample[]>;
}

/**
 * Warms every server up (saturated, {@link WARMUP_S} s), sets the paced rate at `pacedShare` of the
 * slowest guarded server's saturated rate in a window after its warm-up (the first server is the
 * bare route), then runs {@link PAIRS} pairs: in each, every server (in an order that rotates from
 * pair to pair) gets a saturated window and then a paced one.
 */
export async function runPairs(servers: LiveServer[], pacedShare: number): Promise<PairedRun> {
  // The warm-up runs the JIT's first tiers; the rate is read from a window after it.
  const warm: WindowSample[] = [];
  for (const server of servers) {
    await server.load(WARMUP_S);
    warm.push(await server.load(WINDOW_S));
  }
  const rate = Math.round(pacedShare * Math.min(...warm.slice(1).map((w) => w.rps)));
  const saturated = new Map<string, WindowSample[]>(servers.map((s) => [s.name, []]));
  const paced = new Map<string, WindowSample[]>(servers.map((s) => [s.name, []]));
  for (let pair = 0; pair < PAIRS; pair++) {
    const shift = pair % servers.length;
    for (const server of [...servers.slice(shift), ...servers.slice(0, shift)]) {
      saturated.get(server.name)!.push(await server.load(WINDOW_S));
      paced.get(server.name)!.push(await server.load(WINDOW_S, rate));
    }
  }
  return { rate, saturated, paced };
}

/** Per pair: `server`'s CPU per request minus `bare`'s in the same pair. */
export function addedOver(
  windows: ReadonlyMap<string, WindowSample[]>,
  server: string,
  bare: string,
) {
  const base = windows.get(bare)!;
  return windows.get(server)!.map((w, pair) => w.cpuUsPerRequest - base[pair]!.cpuUsPerRequest);
}

/** `median (q1–q3)` of `values`, rounded to whole µs. */
export function quartiles(values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return `${median(values).toFixed(0)} (${at(0.25).toFixed(0)}–${at(0.75).toFixed(0)})`;
}
