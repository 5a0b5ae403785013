/**
 * The API reference in docs/api is generated from the TSDoc of every public entry point
 * (typedoc.json). It must be current, and an export without a doc comment must fail the run.
 */
import { execFile } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = join(__dirname, '..', '..');
const typedoc = join(root, 'node_modules', 'typedoc', 'bin', 'typedoc');
const work = mkdtempSync(join(tmpdir(), 'wi-api-docs-'));

afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Every file under `dir`, as relative path → content. */
function tree(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    files.set(relative(dir, path), readFileSync(path, 'utf8'));
  }
  return files;
}

/** Runs typedoc in `cwd`; resolves with its exit code and everything it printed. */
async function typedocRun(args: string[], cwd = root): Promise<{ code: number; output: string }> {
  return run(process.execPath, [typedoc, ...args], { cwd, maxBuffer: 16 * 1024 * 1024 }).then(
    ({ stdout, stderr }) => ({ code: 0, output: stdout + stderr }),
    (error: { code?: number; stdout?: string; stderr?: string }) => ({
      code: error.code ?? 1,
      output: `${error.stdout}${error.stderr}`,
    }),
  );
}

it('docs/api is what typedoc generates from the sources now (run `pnpm docs:api` after changing a public symbol)', async () => {
  const out = join(work, 'current');
  const { code, output } = await typedocRun(['--out', out]);
  expect({
    code,
    problems: output.split('\n').filter((line) => /warning|error/i.test(line)),
  }).toEqual({ code: 0, problems: [] });
  const generated = tree(out);
  const committed = tree(join(root, 'docs', 'api'));
  expect([...committed.keys()].sort()).toEqual([...generated.keys()].sort());
  for (const [file, text] of generated)
    expect({ file, text: committed.get(file) }).toEqual({ file, text });
}, 120_000);

it("typedoc's program is its entry points: tsconfig.typedoc.json lists exactly typedoc.json's", () => {
  const entryPoints = (
    JSON.parse(readFileSync(join(root, 'typedoc.json'), 'utf8')) as {
      entryPoints: string[];
    }
  ).entryPoints;
  // tsconfig files may hold comments: drop the whole-line ones before parsing.
  const text = readFileSync(join(root, 'tsconfig.typedoc.json'), 'utf8').replace(
    /^\s*\/\/.*$/gm,
    '',
  );
  const { files } = JSON.parse(text) as { files: string[] };
  expect([...files].sort()).toEqual([...entryPoints].sort());
});

it('an exported symbol without a doc comment fails the check', async () => {
  // The project's own typedoc.json, pointed at a one-file project outside the workspace.
  const project = join(work, 'fixture');
  mkdirSync(project);
  copyFileSync(join(__dirname, 'fixtures', 'undocumented.ts'), join(project, 'undocumented.ts'));
  writeFileSync(
    join(project, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { strict: true }, include: ['*.ts'] }),
  );
  const options = JSON.parse(readFileSync(join(root, 'typedoc.json'), 'utf8')) as Record<
    string,
    unknown
  >;
  // Validation as configured; HTML output instead of the markdown plugin (not resolvable from there).
  const { plugin, hidePageHeader, hideBreadcrumbs, ...validation } = options;
  void [plugin, hidePageHeader, hideBreadcrumbs];
  const fixtureOptions = {
    ...validation,
    entryPoints: ['undocumented.ts'],
    tsconfig: 'tsconfig.json',
    out: 'out',
  };
  writeFileSync(join(project, 'typedoc.json'), JSON.stringify(fixtureOptions));
  const { code, output } = await typedocRun(['--options', 'typedoc.json'], project);
  expect(code).not.toBe(0);
  expect(output).toMatch(/undocumented.*does not have any documentation/);
}, 120_000);
