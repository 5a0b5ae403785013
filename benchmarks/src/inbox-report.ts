/**
 * @module The inbox section's report: what inbox.bench.ts measured, per database, path and build
 * (the baseline revision's packages "before", this tree's "after"), printed as the acknowledgement
 * table and the drain table, then the throughput goals (inbox-goals.ts) and the notes.
 */
import { CONNECTIONS, DURATION_S, median, ROUNDS, range, type Sample } from './http.bench';
import {
  type BuildFigures,
  type ClaimPlan,
  type Column,
  type CpuSplit,
  goalTable,
  type InboxSummary,
  type Log,
  table,
} from './inbox-goals';
import { type InboxServerMode, SLOW_HANDLER_MS } from './inbox-paths';

/** Which packages a measurement ran: the baseline revision's (`before`) or this tree's (`after`). */
export type BuildLabel = 'before' | 'after';

/** A build as the report names it. */
export interface BuildInfo {
  readonly label: BuildLabel;
  /** Short sha (`+ uncommitted` for a tree with changes in packages/). */
  readonly commit: string;
  /** What the commit is, when the report should say (the baseline's default). */
  readonly note?: string;
}

/** One drain: the worker's deliveries per second, and CPU per delivery (server and database). */
export interface Drain {
  readonly rate: number;
  readonly cpuUs: number;
  readonly databaseCpuUs?: number;
  readonly deliveries: number;
  readonly emptied: boolean;
}

const MODES: readonly InboxServerMode[] = ['inbox', 'guard', 'guard-slow'];
const LABELS: Record<InboxServerMode, string> = {
  inbox: 'inbox endpoint: store, answer 200',
  guard: 'guard (transactional): claim, booking INSERT, receipt, answer',
  'guard-slow': `guard, the same handler after ${SLOW_HANDLER_MS} ms awaited in the transaction`,
};

/** Everything one run measured, by build, database and path, in round order. */
export class InboxRuns {
  private readonly samplesBy = new Map<string, Sample[]>();
  private readonly drainsBy = new Map<string, Drain[]>();

  /** `builds` in the order each round runs them (the baseline first, when there is one). */
  constructor(
    readonly builds: readonly BuildInfo[],
    readonly databases: readonly string[],
  ) {}

  /** True when a baseline was measured beside this tree. */
  get compared(): boolean {
    return this.builds.some((b) => b.label === 'before');
  }

  commit(label: BuildLabel): string {
    return this.builds.find((b) => b.label === label)?.commit ?? '';
  }

  add(at: { build: BuildLabel; database: string; mode: InboxServerMode }, sample: Sample): void {
    const key = `${at.build}|${at.database}|${at.mode}`;
    this.samplesBy.set(key, [...(this.samplesBy.get(key) ?? []), sample]);
  }

  addDrain(build: BuildLabel, database: string, drain: Drain): void {
    const key = `${build}|${database}`;
    this.drainsBy.set(key, [...(this.drainsBy.get(key) ?? []), drain]);
  }

  samples(build: BuildLabel, database: string, mode: InboxServerMode): readonly Sample[] {
    return this.samplesBy.get(`${build}|${database}|${mode}`) ?? [];
  }

  drains(build: BuildLabel, database: string): readonly Drain[] {
    return this.drainsBy.get(`${build}|${database}`) ?? [];
  }
}

/** The database's CPU per request of `s`; NaN where the database runs in the server. */
const databasePerRequest = (s: Sample) => (s.probed ?? Number.NaN) / Math.max(1, s.requests);
/** The median of `values`, or undefined where any is NaN (no database CPU of its own). */
const medianOrNone = (values: number[]) => (values.some(Number.isNaN) ? undefined : median(values));

function figures(runs: InboxRuns, build: BuildLabel, database: string): BuildFigures {
  const inbox = runs.samples(build, database, 'inbox');
  const guard = runs.samples(build, database, 'guard');
  const drains = runs.drains(build, database);
  const split = (samples: readonly Sample[]): CpuSplit => {
    const databaseUs = medianOrNone(samples.map(databasePerRequest));
    return {
      serverUs: median(samples.map((s) => s.cpuUsPerRequest)),
      ...(databaseUs !== undefined && { databaseUs }),
    };
  };
  const drainDatabaseUs = medianOrNone(drains.map((d) => d.databaseCpuUs ?? Number.NaN));
  return {
    ackRps: median(inbox.map((s) => s.rps)),
    guardRps: median(guard.map((s) => s.rps)),
    drainRate: median(drains.map((d) => d.rate)),
    drainOverAck: median(drains.map((d, i) => d.rate / inbox[i]!.rps)),
    ack: split(inbox),
    guard: split(guard),
    drain: {
      serverUs: median(drains.map((d) => d.cpuUs)),
      ...(drainDatabaseUs !== undefined && { databaseUs: drainDatabaseUs }),
    },
  };
}

/** The medians of `database`, per build measured. */
export function summarize(
  runs: InboxRuns,
  database: { readonly name: string; readonly ackGoal: number },
  claimPlan?: ClaimPlan,
): InboxSummary {
  return {
    database: database.name,
    ackGoal: database.ackGoal,
    commits: {
      after: runs.commit('after'),
      ...(runs.compared && { before: runs.commit('before') }),
    },
    after: figures(runs, 'after', database.name),
    ...(runs.compared && { before: figures(runs, 'before', database.name) }),
    ...(claimPlan && { claimPlan }),
  };
}

const load = (samples: readonly Sample[]) => {
  const max = Math.max(...samples.map((s) => s.clientLoad));
  return max >= 0.9 ? `saturated (${(max * 100).toFixed(0)} %)` : `${(max * 100).toFixed(0)} %`;
};

/** Prints the section: the acknowledgement table, the drain table, the goals and the notes. */
export function inboxReport(
  runs: InboxRuns,
  summaries: readonly InboxSummary[],
  options: { readonly drainMaxS: number; readonly log: Log },
): void {
  const { log, drainMaxS } = options;
  const compared = runs.compared;
  const labels: BuildLabel[] = compared ? ['before', 'after'] : ['after'];
  /** `before → after` of `cell` when a baseline ran, else `after`'s alone. */
  const pair = (cell: (b: BuildLabel) => string) => labels.map(cell).join(' → ');
  const ba = compared ? ', before → after' : '';
  const spread = (values: number[], digits = 0) =>
    `${median(values).toFixed(digits)}${digits ? '×' : ''} (${range(values, digits)})`;
  /** Per round, after's value over before's (the rounds interleave both builds). */
  const perRound = (values: (b: BuildLabel) => number[]) => {
    const after = values('after');
    const before = values('before');
    return spread(
      after.map((a, i) => a / before[i]!),
      2,
    );
  };
  const hasOwnDatabase = (database: string) =>
    !runs.samples('after', database, 'inbox').some((s) => Number.isNaN(databasePerRequest(s)));
  const builds = compared
    ? `; before = \`${runs.commit('before')}\`${runs.builds[0]?.note ? ` (${runs.builds[0].note})` : ''}, after = \`${runs.commit('after')}\``
    : `; this tree at \`${runs.commit('after')}\``;
  log(
    `## Inbox mode: acknowledgement against the synchronous guard on the same database (issues 12 and 20${builds}; autocannon, ${CONNECTIONS} connections, ${DURATION_S} s per path, ${ROUNDS} interleaved rounds, server on core 0, load generator on core 1)`,
  );
  log();
  type AckRow = { readonly database: string; readonly mode: InboxServerMode };
  const of = (b: BuildLabel, row: AckRow) => runs.samples(b, row.database, row.mode);
  const rps = (b: BuildLabel, row: AckRow) => of(b, row).map((s) => s.rps);
  const ackColumns: Array<Column<AckRow> | false> = [
    { head: 'database', cell: (r) => r.database },
    { head: 'path', cell: (r) => LABELS[r.mode] },
    ...labels.map((b) => ({
      head: `req/s${compared ? ` ${b}` : ''} (median, min–max)`,
      cell: (r: AckRow) => spread(rps(b, r)),
    })),
    compared && {
      head: 'after ÷ before (per round)',
      cell: (r) => perRound((b) => rps(b, r)),
    },
    {
      head: `inbox ÷ this (per round${compared ? ', after' : ''})`,
      cell: (r) => {
        if (r.mode === 'inbox') return '—';
        const inbox = rps('after', { ...r, mode: 'inbox' });
        return spread(
          rps('after', r).map((x, i) => inbox[i]! / x),
          2,
        );
      },
    },
    {
      head: `server CPU µs/req${ba}`,
      cell: (r) => pair((b) => median(of(b, r).map((s) => s.cpuUsPerRequest)).toFixed(0)),
    },
    {
      head: `database CPU µs/req${ba}`,
      cell: (r) =>
        hasOwnDatabase(r.database)
          ? pair((b) => median(of(b, r).map(databasePerRequest)).toFixed(0))
          : 'in the server',
    },
    {
      head: `p99 / p99.9 ms${ba}`,
      cell: (r) =>
        pair(
          (b) =>
            `${median(of(b, r).map((s) => s.p99)).toFixed(0)} / ${median(of(b, r).map((s) => s.p999)).toFixed(0)}`,
        ),
    },
    { head: 'load generator', cell: (r) => load(labels.flatMap((b) => of(b, r))) },
  ];
  table(
    ackColumns.filter((c) => c !== false),
    runs.databases.flatMap((database) => MODES.map((mode) => ({ database, mode }))),
    log,
  );
  log();
  const drainsOf = (b: BuildLabel, database: string) => runs.drains(b, database);
  const rates = (b: BuildLabel, database: string) => drainsOf(b, database).map((d) => d.rate);
  /** Per round, the drain's rate over `mode`'s req/s on the same build. */
  const drainOver = (b: BuildLabel, database: string, mode: InboxServerMode) => {
    const samples = runs.samples(b, database, mode);
    return median(drainsOf(b, database).map((d, i) => d.rate / samples[i]!.rps)).toFixed(2);
  };
  const drainColumns: Array<Column<string> | false> = [
    { head: 'database', cell: (database) => database },
    {
      head: 'worker (`createInboxWorker`, concurrency 8, the booking handler, transactional receipts)',
      cell: (database) =>
        `drain the deliveries the endpoint stored (${pair((b) => median(drainsOf(b, database).map((d) => d.deliveries)).toFixed(0))} per round; emptied within ${drainMaxS} s in ${pair((b) => `${drainsOf(b, database).filter((d) => d.emptied).length} of ${drainsOf(b, database).length}`)} rounds)`,
    },
    ...labels.map((b) => ({
      head: `deliveries/s${compared ? ` ${b}` : ''} (median, min–max)`,
      cell: (database: string) => spread(rates(b, database)),
    })),
    compared && {
      head: 'after ÷ before (per round)',
      cell: (database) => perRound((b) => rates(b, database)),
    },
    {
      head: `÷ the endpoint’s ack rate${ba}`,
      cell: (database) => pair((b) => `${drainOver(b, database, 'inbox')}×`),
    },
    {
      head: `÷ the guard’s req/s${ba}`,
      cell: (database) => pair((b) => `${drainOver(b, database, 'guard')}×`),
    },
    {
      head: `server CPU µs/delivery${ba}`,
      cell: (database) => pair((b) => median(drainsOf(b, database).map((d) => d.cpuUs)).toFixed(0)),
    },
    {
      head: `database CPU µs/delivery${ba}`,
      cell: (database) =>
        hasOwnDatabase(database)
          ? pair((b) =>
              median(drainsOf(b, database).map((d) => d.databaseCpuUs ?? Number.NaN)).toFixed(0),
            )
          : 'in the server',
    },
  ];
  table(
    drainColumns.filter((c) => c !== false),
    runs.databases,
    log,
  );
  log();
  goalTable(summaries, log);
  notes(runs, options);
}

/** The paragraphs under the tables: the headline ratios of this tree's build, and how it was measured. */
function notes(runs: InboxRuns, { drainMaxS, log }: { drainMaxS: number; log: Log }): void {
  const perDatabase = (value: (database: string) => number) => runs.databases.map(value);
  const samples = (database: string, mode: InboxServerMode) =>
    runs.samples('after', database, mode);
  const ratioTo = (mode: InboxServerMode) =>
    perDatabase((d) => {
      const inbox = samples(d, 'inbox');
      return median(samples(d, mode).map((r, i) => inbox[i]!.rps / r.rps));
    });
  const p99 = (mode: InboxServerMode) =>
    perDatabase((d) => median(samples(d, mode).map((r) => r.p99)));
  const drainOverGuard = perDatabase((d) => {
    const guard = samples(d, 'guard');
    return median(runs.drains('after', d).map((r, i) => r.rate / guard[i]!.rps));
  });
  log();
  if (runs.compared) {
    const before = runs.builds.find((b) => b.label === 'before');
    log(
      `"Before" and "after" are the same benchmark server bundled twice: against our packages' sources at \`${runs.commit('before')}\`${before?.note ? ` (${before.note})` : ''}, checked out in a temporary git worktree, and at \`${runs.commit('after')}\`, this tree. Every round runs each path on both, the baseline first, each on freshly emptied tables that its own packages' schema created; drivers and Express are the same for both. A build older than an option the server passes (\`unverified\`) runs without it. \`BENCH_BASELINE=<rev>\` picks another baseline, \`BENCH_BASELINE=0\` measures this tree alone.`,
    );
  }
  log(
    `Across these databases${runs.compared ? ', after,' : ''} the endpoint acknowledges ${range(ratioTo('guard'), 1)}× as many deliveries per second as the transactional guard answers, and ${range(ratioTo('guard-slow'), 0)}× as many as the guard whose handler waits ${SLOW_HANDLER_MS} ms; the provider waits ${range(p99('inbox'))} ms at p99 on the endpoint, ${range(p99('guard'))} ms on the guard and ${range(p99('guard-slow'))} ms on the slow guard. The booking still has to happen: the worker does it afterwards at ${range(drainOverGuard, 2)}× the guard's rate (the drain table).`,
  );
  log(
    `No signature (\`provider: 'bench'\`, the key from \`x-event-id\`): a preset's HMAC check would cost the inbox and the guard alike. Every measurement starts on empty tables. PostgreSQL and MariaDB run on the server's core 0 with the Node server, as SQLite runs inside it, so a row's req/s is bounded by both together; "server CPU" is the Node process's, "database CPU" the database server's (PostgreSQL's postmaster and backends, mariadbd's threads, from /proc), per request. In the ${SLOW_HANDLER_MS} ms rows the handler holds the receipt's transaction while it waits: SQLite's one connection allows at most ${1000 / SLOW_HANDLER_MS} such requests per second, a pool of 10 at most ${(10 * 1000) / SLOW_HANDLER_MS}, and their CPU per request is spread over few requests; the inbox endpoint does not wait for a handler at all.`,
  );
  log(
    `The worker runs in the server's process after the endpoint's run, with the HTTP load stopped, over every delivery the endpoint stored (warm-up included); its rate is deliveries processed per second until the backlog was empty or ${drainMaxS} s passed, finished deliveries kept in the table (not purged) as they are between purges.`,
  );
}
