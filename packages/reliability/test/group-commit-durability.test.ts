/**
 * @module Group commit never acknowledges what a crash could lose. Per database (PostgreSQL and
 * MariaDB with durable settings, a SQLite file with `synchronous = FULL`): the real inbox endpoint
 * runs in its own process, 48 concurrent clients keep it saturated with new deliveries, and once
 * it has committed batches of more than one delivery the test SIGKILLs it mid-stream. The
 * database server is then SIGKILLed too and started again (crash recovery). Every delivery that
 * was answered 200 is in the table afterwards. (The benchmarks run the same at a bigger size,
 * without the proxy.)
 *
 * The servers are reached through a proxy that delays every packet by a few milliseconds, so a
 * batch's COMMIT is in flight long enough for the kill to land inside it: an endpoint that
 * answered before its commit returned would lose acknowledged deliveries here. (SQLite's driver is
 * synchronous: a batch commits before the event loop can answer anyone.)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bySize } from '@webhook-idempotency/test-support/proof-size';
import {
  ACK_TABLE,
  ACK_TOKEN,
  ackTargets,
  afterCrash,
  saturateAndKill,
  startAckEndpoint,
} from '../src/ack-kill';
import type { KillableDatabase } from '../src/durable-databases';
import { FaultProxy } from '../src/fault-proxy';

const CLIENTS = 48;
/** Acknowledgements to wait for before the kill: enough for the batches to have formed. */
const ACKS_BEFORE_KILL = bySize({ small: 600, full: 10_000, soak: 50_000 });

/** Added to every packet between the endpoint and a database server, in each direction. */
const LATENCY_MS = 3;

describe.each(ackTargets)(
  'group commit, endpoint SIGKILLed while saturated ($dialect)',
  (target) => {
    let dir: string;
    let database: { url: string; server?: KillableDatabase };
    let proxy: FaultProxy | undefined;

    beforeAll(async () => {
      dir = mkdtempSync(join(process.env.WI_TMP ?? tmpdir(), `wi-group-commit-${target.dialect}-`));
      database = await target.start(dir);
      await target.create(database.url);
      if (database.server) {
        proxy = await FaultProxy.start({ host: '127.0.0.1', port: database.server.port });
        proxy.latencyMs = LATENCY_MS;
      }
    }, 60_000);
    afterAll(async () => {
      await proxy?.close();
      await database?.server?.destroy();
      rmSync(dir, { recursive: true, force: true });
    });

    it('every delivery answered 200 is stored, after the endpoint and then the database were killed', async () => {
      const endpoint = await startAckEndpoint({
        dialect: target.dialect,
        url: proxy ? proxy.urlFor(database.url) : database.url,
        table: ACK_TABLE,
        token: ACK_TOKEN,
      });
      // Bounded: the run stops by itself even if the batches never form (then the test fails below).
      const load = await saturateAndKill(endpoint, {
        clients: CLIENTS,
        killWhen: ({ acknowledged }) =>
          acknowledged >= ACKS_BEFORE_KILL && endpoint.largestBatch() > 1,
        boundMs: 60_000,
      });
      const { lost } = await afterCrash(target, database, load.acknowledged);
      expect({
        largestBatch: endpoint.largestBatch() > 1,
        refused: load.refused,
        lost: lost.slice(0, 5),
        lostCount: lost.length,
      }).toEqual({ largestBatch: true, refused: [], lost: [], lostCount: 0 });
      expect(load.acknowledged.length).toBeGreaterThanOrEqual(ACKS_BEFORE_KILL);
      // The kill met requests in flight: the run was saturated when it happened.
      expect(load.failedConnections).toBeGreaterThan(0);
    }, 120_000);
  },
);
