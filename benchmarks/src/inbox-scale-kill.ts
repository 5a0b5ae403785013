/**
 * @module The scaling section's kill -9 line (inbox-scale.ts): the group-commit endpoint of the
 * durability test (packages/reliability/src/ack-kill.ts) SIGKILLed while saturated, for
 * `BENCH_SCALE_KILL_S` seconds of load (default 5), on PostgreSQL, MariaDB and a SQLite file; then
 * the database server too, and the acknowledged deliveries counted.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import {
  ACK_TABLE,
  ACK_TOKEN,
  ackTargets,
  afterCrash,
  type LoadOutcome,
  saturateAndKill,
  startAckEndpoint,
} from '../../packages/reliability/src/ack-kill';
import { CONNECTIONS } from './http.bench';
import { sizeFrom, thousands } from './inbox-scale-backlog';

const KILL_AFTER_S = sizeFrom('BENCH_SCALE_KILL_S', 5);

export interface KillRow {
  readonly name: string;
  readonly load: LoadOutcome;
  readonly stored: number;
  readonly present: number;
  readonly lost: number;
  readonly largestBatch: number;
}

/** The group-commit endpoint SIGKILLed under load on each database, then the database crashed too. */
export async function killRuns(dir: string): Promise<KillRow[]> {
  const rows: KillRow[] = [];
  for (const target of ackTargets) {
    const where = join(dir, `kill-${target.dialect}`);
    mkdirSync(where, { recursive: true });
    const database = await target.start(where);
    try {
      await target.create(database.url);
      const endpoint = await startAckEndpoint({
        dialect: target.dialect,
        url: database.url,
        table: ACK_TABLE,
        token: ACK_TOKEN,
      });
      const load = await saturateAndKill(endpoint, {
        clients: CONNECTIONS,
        killWhen: ({ elapsedMs }) =>
          elapsedMs >= KILL_AFTER_S * 1000 && endpoint.largestBatch() > 1,
        boundMs: KILL_AFTER_S * 1000 + 60_000,
      });
      const after = await afterCrash(target, database, load.acknowledged);
      rows.push({
        name: target.name,
        load,
        stored: after.stored,
        present: after.present,
        lost: after.lost.length,
        largestBatch: endpoint.largestBatch(),
      });
    } finally {
      await database.server?.destroy();
      rmSync(where, { recursive: true, force: true });
    }
  }
  return rows;
}

export function killReport(rows: readonly KillRow[], log: (line?: string) => void): void {
  log(
    `## Group commit under kill -9: the inbox endpoint SIGKILLed mid-run (${CONNECTIONS} concurrent clients, ${KILL_AFTER_S} s), then its database server`,
  );
  log();
  log(
    '| database | deliveries acknowledged | present after kill -9 | lost | largest batch committed | requests cut by the kill |',
  );
  log('|---|---|---|---|---|---|');
  for (const row of rows) {
    const refused = row.load.refused.length;
    log(
      `| ${row.name} | ${thousands(row.load.acknowledged.length)} | ${thousands(row.present)} | ${row.lost === 0 ? '0' : `**${thousands(row.lost)}**`} | ${row.largestBatch} | ${row.load.failedConnections}${refused ? ` (**${refused} refused**)` : ''} |`,
    );
  }
  log();
  const lost = rows.reduce((sum, r) => sum + r.lost, 0);
  log(
    `The endpoint is packages/reliability/src/ack-server.ts (Express \`inbox()\` over \`SqlInbox\` with group commit) in its own process, killed with SIGKILL while saturated; the PostgreSQL and MariaDB servers are then SIGKILLed as well and started again (crash recovery) before the table is read (SQLite: the file as the kill left it, \`synchronous = FULL\`). ${lost === 0 ? 'No acknowledged delivery was lost on any database' : `**${thousands(lost)} acknowledged deliveries were lost**`}; the table also holds deliveries stored but not yet answered when the kill landed (${rows.map((r) => `${thousands(r.stored - r.present)} on ${r.name.split(' ')[0]}`).join(', ')}).`,
  );
}
