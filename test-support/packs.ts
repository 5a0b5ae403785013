/**
 * @module The published packages as users get them, packed once per jest run for every suite
 * that installs them (tests/consumers, tests/runtimes): `scripts/pack.mjs` packs each with pnpm
 * (its `prepack` builds it only when its sources changed) into the run's temporary folder.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from './node-lines';
import { onceForRun } from './run-once';

const run = promisify(execFile);

/** One packed package. */
export interface PackedTarball {
  /** `@webhook-idempotency/core`. */
  readonly name: string;
  readonly version: string;
  /** Its workspace folder. */
  readonly dir: string;
  /** The `.tgz` file, for `npm install`. */
  readonly tarball: string;
}

/** Every published package, packed (once per run, whichever test file asks first). */
export function packedTarballs(): Promise<PackedTarball[]> {
  return onceForRun('packs', async (dir) => {
    const { stdout } = await run(process.execPath, [join(repoRoot, 'scripts', 'pack.mjs'), dir], {
      cwd: repoRoot,
      maxBuffer: 16 * 1024 * 1024,
    });
    return JSON.parse(stdout) as PackedTarball[];
  });
}

/** The tarball of `name` among `packed`. */
export function tarballOf(packed: readonly PackedTarball[], name: string): string {
  const found = packed.find((pkg) => pkg.name === name);
  if (!found) throw new Error(`${name} was not packed`);
  return found.tarball;
}
