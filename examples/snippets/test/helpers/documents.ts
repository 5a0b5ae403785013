/** @module The Markdown files whose code blocks must come from tested regions. */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

function markdownUnder(dir: string, skip: string): string[] {
  if (!existsSync(dir) || dir === skip) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return markdownUnder(path, skip);
    return name.endsWith('.md') ? [path] : [];
  });
}

function readmesOf(root: string, parent: string): string[] {
  return readdirSync(join(root, parent))
    .map((name) => join(root, parent, name, 'README.md'))
    .filter((path) => existsSync(path));
}

/**
 * README.md, docs/**, packages/* and examples/* READMEs and benchmarks/README.md, as paths
 * relative to `root`, sorted. docs/api is left out: TypeDoc generates it from the doc comments
 * (tests/api-docs checks that it is current).
 */
export function documentPaths(root: string): string[] {
  return [
    join(root, 'README.md'),
    ...markdownUnder(join(root, 'docs'), join(root, 'docs', 'api')),
    ...readmesOf(root, 'packages'),
    ...readmesOf(root, 'examples'),
    join(root, 'benchmarks', 'README.md'),
  ]
    .filter((path) => existsSync(path))
    .map((path) => relative(root, path).split('\\').join('/'))
    .sort();
}
