/**
 * @module The inbox section's throughput goals: per database and build the medians they read
 * ({@link InboxSummary}), the goal table, and the "what remains" lines for the goals a database
 * misses, with the CPU split this run measured. Also the markdown table helper of the section.
 */

/** Prints through `log`, one line at a time. */
export type Log = (line?: string) => void;

/** The claim's scan of the deliveries table (EXPLAIN ANALYZE of a claim of one), next to what the table holds. */
export interface ClaimPlan {
  /** The scan's node type (`Index Scan`, `Bitmap Heap Scan`, …). */
  readonly scan: string;
  /** True when the rows it read were sorted afterwards (the id order of the claim). */
  readonly sorted: boolean;
  /** Rows of the table the scan read: returned plus removed by its filter or recheck. */
  readonly rowsRead: number;
  /** Shared buffers the whole statement touched (hit or read), where the database reports them. */
  readonly buffers?: number;
  readonly done: number;
  readonly unfinished: number;
}

/** CPU µs per delivery or request: the Node server's, and the database server's where it has its own. */
export interface CpuSplit {
  readonly serverUs: number;
  readonly databaseUs?: number;
}

/** One build's medians on one database. */
export interface BuildFigures {
  readonly ackRps: number;
  readonly guardRps: number;
  readonly drainRate: number;
  /** The median of the per-round drain ÷ ack ratios. */
  readonly drainOverAck: number;
  readonly ack: CpuSplit;
  readonly guard: CpuSplit;
  readonly drain: CpuSplit;
}

/** Per database, what the goal table and the "what remains" lines read. */
export interface InboxSummary {
  readonly database: string;
  /** The acknowledgements per second the endpoint should reach on this database. */
  readonly ackGoal: number;
  readonly commits: { readonly before?: string; readonly after: string };
  readonly after: BuildFigures;
  readonly before?: BuildFigures;
  /** The claim's plan after the last round's drain of this tree's build, where the database reports it. */
  readonly claimPlan?: ClaimPlan;
}

/** A throughput goal: how it reads and, per build, its measured value and whether it is met. */
interface Goal {
  readonly kind: 'drain' | 'cpu' | 'acks';
  readonly goal: string;
  value(f: BuildFigures): string;
  /** Undefined where this database cannot measure it. */
  met(f: BuildFigures): boolean | undefined;
}

const DRAIN_OVER_ACK_GOAL = 1;
const CPU_OVER_GUARD_GOAL = 1.2;

/** The database CPU per drained delivery over the guard's per request, where both exist. */
const cpuOverGuard = (f: BuildFigures) =>
  f.drain.databaseUs === undefined || f.guard.databaseUs === undefined
    ? undefined
    : f.drain.databaseUs / f.guard.databaseUs;

function goalsOf(summary: InboxSummary): Goal[] {
  return [
    {
      kind: 'drain',
      goal: `drain ≥ ${DRAIN_OVER_ACK_GOAL.toFixed(1)}× the endpoint's ack rate`,
      value: (f) =>
        `${f.drainOverAck.toFixed(2)}× (${f.drainRate.toFixed(0)} ÷ ${f.ackRps.toFixed(0)}/s)`,
      met: (f) => f.drainOverAck >= DRAIN_OVER_ACK_GOAL,
    },
    {
      kind: 'cpu',
      goal: `database CPU per drained delivery ≤ ${CPU_OVER_GUARD_GOAL}× the guard's per request`,
      value: (f) => {
        const ratio = cpuOverGuard(f);
        return ratio === undefined
          ? `in the server's process (server CPU, SQLite included: ${f.drain.serverUs.toFixed(0)} µs/delivery drained, ${f.guard.serverUs.toFixed(0)} µs/guarded request)`
          : `${ratio.toFixed(2)}× (${f.drain.databaseUs!.toFixed(0)} ÷ ${f.guard.databaseUs!.toFixed(0)} µs)`;
      },
      met: (f) => {
        const ratio = cpuOverGuard(f);
        return ratio === undefined ? undefined : ratio <= CPU_OVER_GUARD_GOAL;
      },
    },
    {
      kind: 'acks',
      goal: `acks ≥ ${summary.ackGoal.toLocaleString('en')}/s`,
      value: (f) => `${f.ackRps.toFixed(0)}/s`,
      met: (f) => f.ackRps >= summary.ackGoal,
    },
  ];
}

const metCell = (met: boolean | undefined) =>
  met === undefined ? '— (no database CPU of its own)' : met ? 'yes' : '**no**';

/** A table column: its heading and its cell for one database (and path). */
export interface Column<Row> {
  readonly head: string;
  cell(row: Row): string;
}

/** Prints a markdown table of `rows`, one cell per column. */
export function table<Row>(columns: readonly Column<Row>[], rows: readonly Row[], log: Log): void {
  log(`| ${columns.map((c) => c.head).join(' | ')} |`);
  log(`|${columns.map(() => '---').join('|')}|`);
  for (const row of rows) log(`| ${columns.map((c) => c.cell(row)).join(' | ')} |`);
}

/** The goal table: per database, each goal with its value before (when measured) and after. */
export function goalTable(summaries: readonly InboxSummary[], log: Log): void {
  const commits = summaries[0]?.commits;
  if (!commits) return;
  const compared = commits.before !== undefined;
  log(
    `### Inbox mode against the throughput goals (issue 20; medians of this run${compared ? ', after' : ''})`,
  );
  log();
  type GoalRow = { readonly summary: InboxSummary; readonly goal: Goal };
  const goalColumns: Array<Column<GoalRow> | false> = [
    { head: 'database', cell: (r) => r.summary.database },
    { head: 'goal', cell: (r) => r.goal.goal },
    compared && {
      head: `before (\`${commits.before}\`)`,
      cell: (r) => r.goal.value(r.summary.before!),
    },
    {
      head: compared ? `after (\`${commits.after}\`)` : 'measured',
      cell: (r) => r.goal.value(r.summary.after),
    },
    { head: 'met', cell: (r) => metCell(r.goal.met(r.summary.after)) },
  ];
  table(
    goalColumns.filter((c) => c !== false),
    summaries.flatMap((summary) => goalsOf(summary).map((goal) => ({ summary, goal }))),
    log,
  );
}

/** `server X µs + database Y µs`, or the server's alone where the database runs inside it. */
const splitText = (c: CpuSplit) =>
  c.databaseUs === undefined
    ? `server ${c.serverUs.toFixed(0)} µs, SQLite's work included`
    : `server ${c.serverUs.toFixed(0)} µs + database ${c.databaseUs.toFixed(0)} µs`;
/** The share of core 0 (the server and the database both run there) that `c` at `perSecond` keeps busy. */
const coreBusy = (c: CpuSplit, perSecond: number) =>
  `${(((c.serverUs + (c.databaseUs ?? 0)) * perSecond) / 1e4).toFixed(0)} %`;

/**
 * The "what remains" lines of this section: per database that misses a throughput goal, which
 * ones with this run's figures, and the CPU split measured per acknowledged, guarded and drained
 * delivery. No cause is guessed beyond what was measured.
 */
export function inboxRemaining(
  inbox: readonly InboxSummary[],
  log: Log,
  bareExpressRps?: number,
): void {
  for (const row of inbox) {
    const { after, before } = row;
    const missed = goalsOf(row).filter((g) => g.met(after) === false);
    if (missed.length === 0) continue;
    const list = missed
      .map(
        (g) =>
          `${g.goal}: ${g.value(after)}${before ? `, before ${g.value(before)} at \`${row.commits.before}\`` : ''}`,
      )
      .join('; ');
    const plan = row.claimPlan;
    const planText =
      plan && missed.some((g) => g.kind === 'drain')
        ? ` After the last drain (${plan.done.toLocaleString('en')} deliveries done, ${plan.unfinished.toLocaleString('en')} unfinished), EXPLAIN ANALYZE of the worker's claim of one delivery read ${plan.rowsRead.toLocaleString('en')} row${plan.rowsRead === 1 ? '' : 's'} of the table (${plan.scan}${plan.sorted ? ', then sorted by id' : ''}${plan.buffers === undefined ? '' : `; ${plan.buffers.toLocaleString('en')} shared buffers`}).`
        : '';
    // Acks: the ceiling core 0 puts on any Express endpoint that costs the database what this one does.
    const bareUs = bareExpressRps ? 1e6 / bareExpressRps : undefined;
    const ackText =
      bareUs !== undefined && missed.some((g) => g.kind === 'acks')
        ? ` The bare Express route of the HTTP table answers ${bareExpressRps!.toFixed(0)} req/s on core 0 alone (${bareUs.toFixed(0)} µs per request); with the database's ${(after.ack.databaseUs ?? 0).toFixed(0)} µs per acknowledged delivery on the same core, no Express endpoint could pass ${(1e6 / (bareUs + (after.ack.databaseUs ?? 0))).toFixed(0)} acks/s here, whatever it did besides; the endpoint's own work over the bare route is ${(after.ack.serverUs - bareUs).toFixed(0)} µs per delivery.`
        : '';
    log(
      `- **Inbox mode on ${row.database} at \`${row.commits.after}\` misses ${list}.** CPU per delivery measured in this run: acknowledged by the endpoint, ${splitText(after.ack)}, core 0 ${coreBusy(after.ack, after.ackRps)} busy at ${after.ackRps.toFixed(0)} acks/s; answered by the guard, ${splitText(after.guard)}; drained by the worker, ${splitText(after.drain)}, core 0 ${coreBusy(after.drain, after.drainRate)} busy at ${after.drainRate.toFixed(0)} deliveries/s.${planText}${ackText} Where core 0 is far from 100 % busy, its CPU was not what bounded the rate; what the path waited on instead is not measured here.`,
    );
  }
}
