/**
 * Bun and Deno for the tests: each runtime's Linux x64 build from the npm registry
 * (`@oven/bun-linux-x64`, `@deno/linux-x64-glibc`), unpacked into the machine's cache folder
 * (`~/.cache/webhook-idempotency/runtimes`, or `WI_RUNTIME_CACHE`) like the Node lines. A
 * runtime that cannot be fetched or does not start is an error, never a skip.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A runtime the suites run in. */
export interface Runtime {
  /** `'bun'` or `'deno'`. */
  readonly name: RuntimeName;
  /** The version it reports, `1.4.5`. */
  readonly version: string;
  /** Its executable. */
  readonly bin: string;
}

/** The runtimes besides Node. */
export type RuntimeName = 'bun' | 'deno';

/** Each runtime's npm package, the version tested (`WI_BUN_VERSION`, `WI_DENO_VERSION` override it) and where the package keeps the binary. */
export const RUNTIMES: Readonly<
  Record<RuntimeName, { readonly pkg: string; readonly version: string; readonly bin: string }>
> = {
  bun: {
    pkg: '@oven/bun-linux-x64',
    version: process.env.WI_BUN_VERSION ?? '1.4.5',
    bin: join('bin', 'bun'),
  },
  deno: {
    pkg: '@deno/linux-x64-glibc',
    version: process.env.WI_DENO_VERSION ?? '2.9.6',
    bin: 'deno',
  },
};

/** Beside the Node lines' cache: a fresh clone on the same machine reuses the unpacked binaries. */
const cache =
  process.env.WI_RUNTIME_CACHE ?? join(homedir(), '.cache', 'webhook-idempotency', 'runtimes');

/**
 * Downloads and unpacks one runtime (cached, so cheap the second time) and checks that it starts
 * and reports the version asked for.
 * @throws {Error} naming the package when the platform has no build here, the registry does not
 * serve it, or the binary does not run.
 */
export async function prepareRuntime(name: RuntimeName): Promise<Runtime> {
  const { pkg, version, bin: inPackage } = RUNTIMES[name];
  if (process.platform !== 'linux' || process.arch !== 'x64')
    throw new Error(
      `${name}: the tests fetch ${pkg}, a Linux x64 build; this is ${process.platform} ${process.arch}`,
    );
  const home = join(cache, `${name}-${version}`);
  const bin = join(home, 'package', inPackage);
  if (!existsSync(bin)) {
    rmSync(home, { recursive: true, force: true }); // what a run that stopped half-way left
    mkdirSync(cache, { recursive: true });
    // Unpacked beside the cache entry, then renamed into place: a run that stops half-way, or
    // another run preparing the same version at once, never leaves a partial binary behind.
    const staging = mkdtempSync(join(cache, `.${name}-${version}-`));
    try {
      await run('npm', ['pack', `${pkg}@${version}`, '--silent'], {
        cwd: staging,
        maxBuffer: 16 * 1024 * 1024,
      }).catch((error: { stderr?: string }) => {
        throw new Error(
          `${name}: npm pack ${pkg}@${version} failed: ${error.stderr?.trim() || String(error)}`,
        );
      });
      const tarball = readdirSync(staging).find((file) => file.endsWith('.tgz'));
      if (!tarball) throw new Error(`${name}: npm pack ${pkg}@${version} gave no tarball`);
      await run('tar', ['-xzf', tarball], { cwd: staging });
      rmSync(join(staging, tarball));
      try {
        renameSync(staging, home);
      } catch (error) {
        // Another run put the same version in place first: use that one.
        if (!existsSync(bin)) throw error;
      }
    } finally {
      rmSync(staging, { recursive: true, force: true });
    }
  }
  const { stdout } = await run(bin, ['--version']).catch((error: unknown) => {
    throw new Error(`${name}: ${bin} does not run: ${String(error)}`);
  });
  const reported = /(\d+\.\d+\.\d+)/.exec(stdout)?.[1];
  if (reported !== version)
    throw new Error(`${name}: ${bin} reports ${stdout.trim()}, not ${version}`);
  return { name, version, bin };
}
