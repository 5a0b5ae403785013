/**
 * A Node line or a runtime the docs name runs in `pnpm test`: every "Node 2x" in README.md and
 * docs/ (the generated API pages aside) is the machine's Node or a line of NODE_LINES
 * (test-support/run-node-lines.ts runs suites on each, tests/consumers installs the tarballs on
 * each), and the Cloudflare Workers the docs name are the workerd suites jest.config.ts lists.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { NODE_LINES, repoRoot } from '@webhook-idempotency/test-support/node-lines';
import { WORKERD_SUITES } from '../../jest.config';

/** README.md and every page under docs/ but the generated API reference. */
function docPages(dir = join(repoRoot, 'docs')): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'api' ? [] : docPages(path);
    return path.endsWith('.md') ? [path] : [];
  });
}
const pages = [join(repoRoot, 'README.md'), ...docPages()];
const text = pages.map((page) => readFileSync(page, 'utf8')).join('\n');
const major = (version: string) => Number(version.split('.')[0]);

it('every Node line the docs name (Node 20, Node 22, Node 24, Node 26) is one pnpm test runs', () => {
  const named = new Set(
    [...text.matchAll(/\bNode(?:\.js)? v?(\d{2})\b/g)].map((match) => Number(match[1])),
  );
  const run = new Set([major(process.versions.node), ...NODE_LINES.map(major)]);
  expect(named.size).toBeGreaterThan(0);
  expect([...named].filter((line) => !run.has(line))).toEqual([]);
  // README.md says which lines run what; it must name each line NODE_LINES holds.
  const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
  for (const line of NODE_LINES) expect(readme).toContain(String(major(line)));
});

it('the Cloudflare Workers the docs name run in workerd: the suites jest.config.ts lists exist', () => {
  expect(text).toContain('Cloudflare Workers');
  expect(WORKERD_SUITES.length).toBeGreaterThan(0);
  for (const suite of WORKERD_SUITES) expect(existsSync(join(repoRoot, suite))).toBe(true);
  // A Worker built with wrangler, driven in workerd (examples/cloudflare-d1).
  expect(WORKERD_SUITES).toContain('examples/cloudflare-d1/test/workers.test.ts');
});
