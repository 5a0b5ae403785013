/**
 * @module The code a benchmark is compared with: our packages at another git revision, checked out
 * in a temporary worktree, so that one run bundles the same benchmark program twice (against that
 * tree's package sources and against this one's) and measures both, interleaved, on one machine.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/** The repository this benchmarks package is in. */
const REPO = join(__dirname, '..', '..');
const SCOPE = '@webhook-idempotency/';

const git = (args: readonly string[]): string =>
  execFileSync('git', args, { cwd: REPO, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
    .toString()
    .trim();

/** A detached checkout of the baseline revision. */
export interface BaselineTree {
  readonly root: string;
  readonly sha: string;
  /** The short sha, as reports print it. */
  readonly short: string;
  /** Removes the checkout and its worktree entry. */
  remove(): void;
}

/** The revision to compare with: `BENCH_BASELINE`, else `fallback`; none when it is `0`. */
export function baselineRevision(fallback: string): string | undefined {
  const revision = process.env.BENCH_BASELINE ?? fallback;
  return revision === '0' || revision === '' ? undefined : revision;
}

/** `git worktree add --detach` of `revision` at `dir` (which must not exist yet). */
export function checkoutBaseline(revision: string, dir: string): BaselineTree {
  const sha = git(['rev-parse', '--verify', `${revision}^{commit}`]);
  git(['worktree', 'add', '--detach', '--quiet', dir, sha]);
  return {
    root: dir,
    sha,
    short: git(['rev-parse', '--short', sha]),
    remove() {
      try {
        git(['worktree', 'remove', '--force', dir]);
      } catch {
        rmSync(dir, { recursive: true, force: true });
        git(['worktree', 'prune']);
      }
    },
  };
}

/** The short sha of the tree this runs from, `+ uncommitted` when packages/ has changes. */
export function currentCommit(): string {
  const changed = git(['status', '--porcelain', '--', 'packages']) !== '';
  return `${git(['rev-parse', '--short', 'HEAD'])}${changed ? ' + uncommitted' : ''}`;
}

/** A file an `exports` entry names: the string itself, or the first of the usual conditions. */
function entryFile(target: unknown): string | undefined {
  if (typeof target === 'string') return target;
  if (typeof target !== 'object' || target === null) return undefined;
  const conditions = target as Record<string, unknown>;
  return entryFile(conditions.import ?? conditions.default ?? conditions.require);
}

/**
 * esbuild aliases sending every import of our packages, each entry point of their `exports` (or
 * their `main`), to the files `root`'s package.json files name. Throws when an entry names a
 * file the tree lacks (a build output: a checkout is not built). A package that declares no entry
 * point is left out.
 */
export function packageAliases(root: string): Record<string, string> {
  const aliases: Record<string, string> = {};
  const packages = join(root, 'packages');
  for (const folder of readdirSync(packages)) {
    const manifestFile = join(packages, folder, 'package.json');
    if (!existsSync(manifestFile)) continue;
    const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as {
      name?: string;
      main?: string;
      exports?: unknown;
    };
    const name = manifest.name;
    const exportsMap = manifest.exports ?? manifest.main;
    // Not ours, or a package with no entry point to import (a private helper folder).
    if (!name?.startsWith(SCOPE) || exportsMap === undefined) continue;
    // A map of subpaths (`.`, `./adapter`), or one entry (a string or conditions) for `.`.
    const entries =
      typeof exportsMap === 'object' &&
      exportsMap !== null &&
      Object.keys(exportsMap).every((key) => key.startsWith('.'))
        ? (exportsMap as Record<string, unknown>)
        : { '.': exportsMap };
    for (const [subpath, target] of Object.entries(entries)) {
      if (subpath === './package.json') continue;
      const file = entryFile(target);
      const path = file === undefined ? undefined : join(packages, folder, file);
      if (subpath.includes('*') || path === undefined || !existsSync(path))
        throw new Error(
          `${name} at ${root}: its entry "${subpath}" (${JSON.stringify(target)}) is not a file of the checkout`,
        );
      aliases[subpath === '.' ? name : `${name}/${subpath.slice(2)}`] = path;
    }
  }
  return aliases;
}

/**
 * {@link packageAliases} of a baseline checkout, plus, for each entry point this tree has and the
 * baseline lacks (`@webhook-idempotency/core/inbox` before the inbox had its own), the
 * baseline's root of the same package, where those names lived before. A package the baseline
 * lacks altogether is left out: a program importing it cannot be built against that baseline.
 */
export function baselineAliases(root: string): Record<string, string> {
  const aliases = packageAliases(root);
  for (const name of Object.keys(packageAliases(REPO))) {
    const [scope, pkg, ...subpath] = name.split('/');
    const packageRoot = `${scope}/${pkg}`;
    if (subpath.length > 0 && !(name in aliases) && aliases[packageRoot])
      aliases[name] = aliases[packageRoot];
  }
  return aliases;
}
