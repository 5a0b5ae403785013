/**
 * @module The outbox storm's kills: the steps that SIGKILL its handler servers and dispatchers
 * (from outside, or inside a run or a send) and restart them, the background those restarts finish
 * in, and how the report names a kill or a crash.
 */
import type { AppCrash, Cluster } from '../storm/cluster';
import type { FaultStep } from '../storm/faults';
import type { Death } from './judge';

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves once `ready()` holds, polling every 10 ms, or after `timeoutMs`; with whether it held. */
export async function until(ready: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!ready()) {
    if (Date.now() > deadline) return false;
    await sleep(10);
  }
  return true;
}

/** How long a process told to die in its next run or send may take to get there (a database restart may come between). */
const DEATH_TIMEOUT_MS = 30_000;

const WHERE = {
  now: 'at once',
  'in-handler': 'inside a run, before its commit',
  'before-send': 'as its send starts',
  'mid-send': 'after its receiver accepted',
} as const;

/** How the report names a kill (`SIGKILL dispatcher 0 as its send starts + restart`). */
export function killName(
  kind: 'handler' | 'dispatcher',
  slot: number,
  how: keyof typeof WHERE,
): string {
  return `SIGKILL ${kind} ${slot} ${WHERE[how]} + restart`;
}

/**
 * The steps that SIGKILL `kind`'s processes and restart them, each after any kill of that slot
 * still on its way. From outside (`now`): the step ends once the process is gone. Inside a run or
 * a send: it ends as soon as the process is told (the schedule goes on: a run or a send can only
 * come once deliveries do). The deaths and the restarts finish in the background, while the
 * deliveries go on: `background` gets a promise of each, resolving with the error if one failed.
 */
export function killSteps(
  kind: 'handler' | 'dispatcher',
  cluster: Cluster,
  kills: ReadonlyArray<{
    readonly at: number;
    readonly slot: number;
    readonly how: 'now' | Death['how'];
  }>,
  deaths: Death[],
  background: Map<string, Promise<unknown>>,
): FaultStep[] {
  return kills.map(({ at, slot, how }) => {
    const what = killName(kind, slot, how);
    const id = `${kind} ${slot}`;
    return {
      at,
      what,
      run: async (began) => {
        await background.get(id);
        if (how === 'now') {
          began();
          await cluster.kill(slot);
          background.set(
            id,
            cluster.restart(slot).then(
              () => undefined,
              (error: unknown) => error,
            ),
          );
          return;
        }
        await new Promise<void>((told, failed) => {
          const death = cluster
            .killInHandler(
              slot,
              () => {
                began();
                told();
              },
              { where: how === 'in-handler' ? undefined : how, timeoutMs: DEATH_TIMEOUT_MS },
            )
            .then(async (marker) => {
              deaths.push({ what, how, marker });
              await cluster.restart(slot);
            });
          death.catch(failed);
          background.set(
            id,
            death.then(
              () => undefined,
              (error: unknown) => error,
            ),
          );
        });
      },
    };
  });
}

/** Waits for the background kills of `kind`'s processes; throws the first one's error. */
export async function settled(
  background: Map<string, Promise<unknown>>,
  kind: string,
): Promise<void> {
  for (const [id, outcome] of background)
    if (id.startsWith(`${kind} `)) {
      const error = await outcome;
      if (error) throw error;
    }
}

export function describeCrash(kind: string, crash: AppCrash): string {
  const lines = crash.output.split('\n').map((l) => l.trim());
  const telling = lines.filter(
    (l) => /error|exception|rejection/i.test(l) && !l.startsWith('at ') && !l.startsWith('['),
  );
  return `${kind} ${crash.slot} exited ${crash.exit} at ${crash.at} ms: ${(telling.length > 0 ? telling.slice(0, 3) : lines.slice(-3)).join(' | ')}`;
}
