/**
 * @module Work that several test files of one jest run need, done once for the run: the first
 * file to ask does it, the others (in other workers) wait for its result. Keyed by the run's
 * temporary folder (`WI_TMP`, made by jest's global setup), so each run starts afresh.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** How long a test file waits for another one's result before it gives up. */
const WAIT_MS = 15 * 60_000;

/**
 * Runs `work` once per jest run under `name`, in a fresh folder it may fill; every caller gets
 * its result (JSON-serialisable), or its error. The folder lives as long as the run.
 * @throws {Error} when `work` failed (in this file or another), or took longer than 15 minutes.
 */
export async function onceForRun<T>(name: string, work: (dir: string) => Promise<T>): Promise<T> {
  const base = process.env.WI_TMP;
  if (!base)
    throw new Error(
      `WI_TMP is not set: ${name} is shared by a jest run, whose global setup makes its folder`,
    );
  const dir = join(base, name);
  const result = join(base, `${name}.result.json`);
  try {
    mkdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return waitForResult<T>(name, result);
  }
  let outcome: { value: T } | { error: string };
  try {
    outcome = { value: await work(dir) };
  } catch (error) {
    outcome = { error: error instanceof Error ? (error.stack ?? error.message) : String(error) };
  }
  // Written whole, then renamed: a waiting file never reads half of it.
  writeFileSync(`${result}.partial`, JSON.stringify(outcome));
  renameSync(`${result}.partial`, result);
  return settled(name, outcome);
}

async function waitForResult<T>(name: string, file: string): Promise<T> {
  const deadline = Date.now() + WAIT_MS;
  while (!existsSync(file)) {
    if (Date.now() > deadline)
      throw new Error(`${name}: no result from the test file preparing it after ${WAIT_MS} ms`);
    await sleep(200);
  }
  return settled(name, JSON.parse(readFileSync(file, 'utf8')) as { value: T } | { error: string });
}

function settled<T>(name: string, outcome: { value: T } | { error: string }): T {
  if ('error' in outcome) throw new Error(`${name} failed: ${outcome.error}`);
  return outcome.value;
}
