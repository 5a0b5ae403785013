/**
 * @module The faults of a DynamoDB storm: app servers SIGKILLed at set points (one inside a
 * handler, after its effect), and the store's server taken away once.
 *
 * The store's fault is chosen by what the server promises. dynalite writes each acknowledged
 * request to its LevelDB log before answering, so it is SIGKILLed and restarted. DynamoDB Local
 * does not: it can answer a `TransactWriteItems` whose commit a SIGKILL then loses (a client that
 * only counts its acknowledged transactions, killing the emulator under load, loses one in about
 * two runs of three), which DynamoDB itself never does and which no store could survive. It is
 * made unreachable instead, as DynamoDB is seen from an application: the app servers reach it
 * through a proxy; one `TransactWriteItems` is executed and its answer cut (the outcome unknown
 * to the store), then the emulator is frozen (SIGSTOP), every connection dropped and new ones
 * refused for `storeDownMs`, and it resumes (SIGCONT) with what it had read still to run.
 */
import type { DynamoServer } from '@webhook-idempotency/test-support/dynamodb';
import type { FaultProxy } from '../fault-proxy';
import type { Cluster } from './cluster';
import { type FaultStep, serverKillSteps } from './faults';

/** When and how a DynamoDB storm's faults strike. */
export interface DynamoFaultPlan {
  readonly serverKills: ReadonlyArray<{
    readonly at: number;
    readonly slot: number;
    readonly how: 'now' | 'in-handler';
  }>;
  /**
   * The store's fault: `'kill'` SIGKILLs the server and starts it again (a server that writes what
   * it acknowledges before answering: dynalite); `'unreachable'` cuts one transaction's answer,
   * freezes the server and drops every connection to it, then lets it resume (DynamoDB Local).
   */
  readonly storeFault: 'kill' | 'unreachable';
  /** Fraction of finished deliveries at which the store's fault begins. */
  readonly storeKillAt: number;
  /** How long the server stays down or unreachable (a restart's start adds to it). */
  readonly storeDownMs: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The faults of the run: app servers SIGKILLed (`killedInHandler` collects the ids), and the store's. */
export function faultSteps(
  cluster: Cluster,
  store: FaultStep,
  options: DynamoFaultPlan,
  killedInHandler: string[],
): FaultStep[] {
  const steps = serverKillSteps(cluster, options.serverKills, killedInHandler);
  steps.push(store);
  return steps;
}

/** How long the unreachable fault waits for a `TransactWriteItems` to cut the answer of. */
const CUT_WAIT_MS = 5_000;

/** The store's fault (see the module's comment for why each server gets the one it gets). */
export function storeFault(
  server: DynamoServer,
  proxy: FaultProxy | undefined,
  options: DynamoFaultPlan,
): FaultStep {
  const at = options.storeKillAt;
  if (!proxy)
    return {
      at,
      what: 'SIGKILL dynamodb + restart',
      run: async (began) => {
        began();
        await server.kill();
        await sleep(options.storeDownMs);
        await server.start();
      },
    };
  return {
    at,
    what: "dynamodb unreachable (a transaction's answer cut, frozen, connections dropped) + back",
    run: async (began) => {
      began();
      const cut = proxy.cutWhen(
        (bytes) => bytes.includes('DynamoDB_20120810.TransactWriteItems'),
        'after',
      );
      const cutsBefore = proxy.stats.cut;
      const fired = await Promise.race([cut.fired.then(() => true), sleep(CUT_WAIT_MS)]);
      cut.disarm();
      if (!fired) throw new Error(`no TransactWriteItems within ${CUT_WAIT_MS} ms to cut`);
      // Its answer cut (the transaction ran), or the server still at it when it is frozen.
      for (let waited = 0; proxy.stats.cut === cutsBefore && waited < CUT_WAIT_MS; waited += 10)
        await sleep(10);
      process.kill(server.pid(), 'SIGSTOP');
      try {
        proxy.dropAll();
        await proxy.refuse();
        await sleep(options.storeDownMs);
      } finally {
        process.kill(server.pid(), 'SIGCONT');
      }
      await proxy.accept();
    },
  };
}
