/**
 * The provider SDKs are type-only peers: the built JavaScript (every entry, the type-only
 * `types/…` ones included) imports nothing but core and node:crypto, so an app without `stripe`,
 * `@octokit/openapi-webhooks-types`, `@slack/types`, `discord-api-types`, `@clerk/backend`,
 * `resend` or any other SDK the package names as an optional peer runs the presets, and one with them loads none of them through us.
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const packageDir = join(__dirname, '..', '..');
const dist = join(packageDir, 'dist');
const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as {
  exports: Record<string, string>;
  peerDependencies: Record<string, string>;
};
/** The provider SDKs: every optional peer but core. */
const SDKS = Object.keys(manifest.peerDependencies).filter(
  (name) => !name.startsWith('@webhook-idempotency/'),
);
/** The type-only entries (`./types/stripe` → `stripe`). */
const TYPE_ENTRIES = Object.keys(manifest.exports)
  .filter((entry) => entry.startsWith('./types/'))
  .map((entry) => entry.slice('./types/'.length));

/** Every module specifier a built file loads: `import … from`, `import(…)`, `require(…)`, `export … from`. */
function specifiers(text: string): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const found = code.matchAll(
    /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|^\s*import\s+)(["'])([^"']+)\1/gm,
  );
  return [...found].map((match) => match[2]!);
}

function builtFiles(): string[] {
  const files: string[] = [];
  for (const folder of [dist, join(dist, 'types')])
    for (const name of readdirSync(folder))
      if (/\.(c|m)js$/.test(name)) files.push(join(folder, name));
  return files;
}

beforeAll(async () => {
  await run(process.execPath, [join(packageDir, '..', '..', 'scripts', 'build-if-stale.mjs')], {
    cwd: packageDir,
  });
}, 120_000);

it('builds an empty module for each type-only entry', () => {
  expect(TYPE_ENTRIES).toContain('stripe');
  for (const name of TYPE_ENTRIES)
    for (const ext of ['mjs', 'cjs'])
      expect(specifiers(readFileSync(join(dist, 'types', `${name}.${ext}`), 'utf8'))).toEqual([]);
});

it('loads nothing of any provider SDK from any built file', () => {
  const loaded = new Set(builtFiles().flatMap((file) => specifiers(readFileSync(file, 'utf8'))));
  expect([...loaded].filter((name) => SDKS.some((sdk) => name.startsWith(sdk)))).toEqual([]);
  expect([...loaded].filter((name) => !name.startsWith('.')).sort()).toEqual([
    '@webhook-idempotency/core',
    '@webhook-idempotency/core/adapter',
    'node:crypto',
  ]);
});

it('names the SDKs only in the declarations of the type-only entries', () => {
  const stripe = readFileSync(join(dist, 'types', 'stripe.d.mts'), 'utf8');
  expect(specifiers(stripe)).toContain('stripe');
  const index = readFileSync(join(dist, 'index.d.mts'), 'utf8');
  expect(specifiers(index).filter((name) => SDKS.some((sdk) => name.startsWith(sdk)))).toEqual([]);
});
