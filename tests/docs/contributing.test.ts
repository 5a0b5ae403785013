/**
 * Every command in CONTRIBUTING.md is run here, as written, or is shown to be what a run of the
 * project runs anyway (CI's `pnpm test` and its steps, the README's install that the consumer
 * tests run, the API reference the api-docs test regenerates). A command nobody runs fails the
 * first test: a new line in CONTRIBUTING.md needs a way to be run below. The jest commands run for
 * real or list the files they would run (`--listTests`), so a renamed file or script fails here.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const exec = promisify(execFile);
const root = join(__dirname, '..', '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');
const contributing = read('CONTRIBUTING.md');
const rootScripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> })
  .scripts;

/** Every line of every `sh` block of a markdown text. */
function shellLines(markdown: string): string[] {
  return [...markdown.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) =>
    m[1]!
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '' && !line.startsWith('#')),
  );
}

/** The environment without what `pnpm test`'s runner sets for its own jest lanes. */
function withoutRun(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { WI_JEST_LANE: _lane, JEST_JSON: _json, ...rest } = env;
  return rest;
}

/** Runs a command line through the shell at the root; resolves with its exit code and output. */
async function sh(line: string, env: Record<string, string> = {}) {
  try {
    const { stdout, stderr } = await exec('bash', ['-c', line], {
      cwd: root,
      // As a contributor's shell has it: not the lane of `pnpm test` this file may run in (which
      // leaves the serial suites out), nor its JSON report.
      env: { ...withoutRun(process.env), ...env },
      maxBuffer: 64 * 1024 * 1024,
      timeout: 240_000,
    });
    return { code: 0, out: `${stdout}${stderr}` };
  } catch (error) {
    const { code, stdout, stderr } = error as { code?: number; stdout?: string; stderr?: string };
    return { code: code ?? 1, out: `${stdout ?? ''}${stderr ?? ''}` };
  }
}

/** The test files a `--listTests` run printed, relative to the root. */
const listed = (out: string) =>
  out
    .split('\n')
    .filter((line) => line.startsWith(root) && line.endsWith('.test.ts'))
    .map((line) => line.slice(root.length + 1));

type Runner = { pattern: RegExp; run: (line: string, m: RegExpMatchArray) => Promise<void> };

/** How each kind of command is run. */
const RUNNERS: Runner[] = [
  {
    // The install and the whole run: what `.ci/run` does on a fresh clone, every landing.
    pattern: /^pnpm (install|test)$/,
    run: async (line) => {
      const ci = read('.ci/run');
      expect(ci).toMatch(line === 'pnpm test' ? /^[A-Z_=.\w/-]* ?pnpm test$/m : /pnpm install/);
      expect(read('README.md')).toContain(line);
    },
  },
  {
    // The steps of `pnpm test` (test-support/run-jest.ts runs them beside the jest files), run
    // by every CI run.
    pattern: /^pnpm run (typecheck|lint)$/,
    run: async (_line, m) => {
      expect(rootScripts.test).toContain('pnpm run test:jest');
      expect(read('test-support/run-jest.ts')).toContain(`script('${m[1]}')`);
      expect(rootScripts[m[1]!]).toBeDefined();
    },
  },
  {
    // A package's own script: the files it would run, all that package's.
    pattern: /^pnpm --filter (@webhook-idempotency\/([\w-]+)) test$/,
    run: async (line, m) => {
      const { code, out } = await sh(`${line} --listTests`);
      expect(code).toBe(0);
      const files = listed(out);
      expect(files.length).toBeGreaterThan(5);
      expect(files.filter((file) => !file.startsWith(`packages/${m[2]}/`))).toEqual([]);
    },
  },
  {
    // One file, one test by name, or one file without servers: run for real.
    pattern: /^(WI_JEST_SERVERS=none )?pnpm exec jest (\S+\.test\.ts)( -t "[^"]+")?$/,
    run: async (line, m) => {
      const { code, out } = await sh(
        m[1] ? line : `WI_JEST_SERVERS=none ${line}`,
        m[1] ? {} : { WI_JEST_SERVERS: 'none' },
      );
      expect(out).toMatch(/Tests:\s+(\d+ skipped, )?[1-9]\d* passed/);
      expect(code).toBe(0);
      if (m[3]) expect(out).toMatch(/skipped/);
    },
  },
  {
    // The proofs at full size: the files they run are there (the run itself is CI's proof step).
    pattern: /^pnpm test:proof$/,
    run: async (line) => {
      const { code, out } = await sh(`${line} --listTests`);
      expect(code).toBe(0);
      expect(listed(out).length).toBeGreaterThanOrEqual(10);
    },
  },
  {
    // The benchmarks: their scripts resolve to files of the benchmarks package.
    pattern: /^pnpm (bench|--filter @webhook-idempotency\/benchmarks run (bench:[\w-]+))$/,
    run: async (_line, m) => {
      const bench = (
        JSON.parse(read('benchmarks/package.json')) as { scripts: Record<string, string> }
      ).scripts;
      const script = m[2] ?? 'bench';
      expect(rootScripts.bench).toContain('run bench');
      const file = bench[script]?.match(/src\/[\w.-]+\.ts/)?.[0];
      expect(file).toBeDefined();
      expect(() => read(join('benchmarks', file!))).not.toThrow();
    },
  },
  {
    // The snippets: copying them changes nothing on a tree whose docs are current.
    pattern: /^pnpm docs:snippets$/,
    run: async (line) => {
      const before = (await sh('git status --porcelain docs README.md')).out;
      const { code } = await sh(line);
      expect(code).toBe(0);
      expect((await sh('git status --porcelain docs README.md')).out).toBe(before);
    },
  },
  {
    // The API reference: tests/api-docs regenerates it with this script's typedoc.json.
    pattern: /^pnpm docs:api$/,
    run: async () => {
      expect(rootScripts['docs:api']).toBe('typedoc');
      expect(read('tests/api-docs/api-docs.test.ts')).toContain('typedoc.json');
    },
  },
  {
    pattern: /^pnpm changeset status$/,
    run: async (line) => {
      const { code, out } = await sh(line);
      expect(out).not.toMatch(/error/i);
      expect(code).toBe(0);
    },
  },
  {
    // The README's install runs `pnpm pack:all` in tests/consumers/packed-tarballs.test.ts.
    pattern: /^pnpm pack:all --out \S+$/,
    run: async () => {
      expect(read('README.md')).toMatch(/^pnpm pack:all --out \S+$/m);
      expect(read('tests/consumers/packed-tarballs.test.ts')).toContain(
        "readmeInstallBlock('pnpm pack:all')",
      );
    },
  },
];

const lines = shellLines(contributing);

describe('CONTRIBUTING.md: every command runs as written', () => {
  it('has a way to run each of its commands', () => {
    expect(lines.length).toBeGreaterThan(10);
    expect(lines.filter((line) => !RUNNERS.some((r) => r.pattern.test(line)))).toEqual([]);
  });

  it.each(lines)(
    '%s',
    async (line) => {
      const runner = RUNNERS.find((r) => r.pattern.test(line));
      expect(runner).toBeDefined();
      await runner!.run(line, line.match(runner!.pattern)!);
    },
    300_000,
  );
});
