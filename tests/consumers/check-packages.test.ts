/**
 * scripts/check-packages.mjs, which judges every packed tarball in packed-tarballs.test.ts: its
 * arethetypeswrong check finds a package whose CommonJS entry is typed by ES module declarations
 * (the classic "masquerading" problem), and passes the same package typed per format.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const work = mkdtempSync(join(tmpdir(), 'wi-check-packages-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A tarball as npm packs it (`package/…`) of a dual package whose exports are `exports`. */
function tarball(name: string, exports: unknown, files: Record<string, string>): string {
  const dir = join(work, name);
  mkdirSync(join(dir, 'package'), { recursive: true });
  const manifest = { name, version: '1.0.0', type: 'module', license: 'MIT', exports };
  writeFileSync(join(dir, 'package', 'package.json'), JSON.stringify(manifest));
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, 'package', file), text);
  const file = join(work, `${name}.tgz`);
  execFileSync('tar', ['-czf', file, '-C', dir, 'package']);
  return file;
}

const JS = {
  'index.js': 'export const answer = 42;\n',
  'index.cjs': 'exports.answer = 42;\n',
};

/**
 * The script's arethetypeswrong problems for each of `files`, in one process (the script is an ES
 * module, run by Node as it is, not by jest).
 */
function attwProblems(...files: string[]): string[][] {
  const script = pathToFileURL(join(__dirname, '..', '..', 'scripts', 'check-packages.mjs'));
  const code = `import(${JSON.stringify(script.href)}).then(async (m) => {
    const found = [];
    for (const tarball of ${JSON.stringify(files)}) found.push(await m.attwProblems({ tarball }));
    console.log(JSON.stringify(found));
  })`;
  return JSON.parse(execFileSync(process.execPath, ['-e', code], { encoding: 'utf8' }));
}

it('finds CommonJS typed by ES module declarations, and passes the same package typed per format', () => {
  const masquerading = tarball(
    'masquerading',
    { '.': { types: './index.d.ts', import: './index.js', require: './index.cjs' } },
    { ...JS, 'index.d.ts': 'export declare const answer: number;\n' },
  );
  const typedPerFormat = tarball(
    'typed-per-format',
    {
      '.': {
        import: { types: './index.d.ts', default: './index.js' },
        require: { types: './index.d.cts', default: './index.cjs' },
      },
    },
    {
      ...JS,
      'index.d.ts': 'export declare const answer: number;\n',
      'index.d.cts': 'export declare const answer: number;\n',
    },
  );
  const [found, clean] = attwProblems(masquerading, typedPerFormat);
  expect(found).toEqual([expect.stringMatching(/^FalseESM: .*index\.d\.ts/)]);
  expect(clean).toEqual([]);
});
