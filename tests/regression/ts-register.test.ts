/**
 * test-support/register.cjs, the require hook the test run's Node children load TypeScript
 * through, keeps what esbuild compiled in a cache on disk, so the ~hundred children of a run stop
 * compiling the same workspace sources again. Real `node` children on a throw-away TypeScript
 * program and a cache folder of their own: a child runs; the next one compiles nothing and never
 * loads esbuild; an edited file is compiled again, alone; a damaged entry is compiled again and
 * replaced; children starting at once leave whole entries; a thrown error names the .ts line.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const HOOK = require.resolve('@webhook-idempotency/test-support/register');
const work = mkdtempSync(join(process.env.WI_TMP ?? tmpdir(), 'ts-register-'));
const app = join(work, 'app');
const cache = join(work, 'cache');
const MAIN = join(app, 'main.ts');
const LIB = join(app, 'lib.ts');

/** lib.ts: types first, so the line of its `throw` in TypeScript is not its line in JavaScript. */
const lib = (answer: number) => `export interface Question {
  readonly text: string;
  readonly asked: number;
}

export type Answer = number;

export function answerOf(question: Question): Answer {
  if (question.text === 'throw') {
    throw new Error('asked to throw');
  }
  return ${answer} as Answer;
}
`;
/** The 1-based line of lib.ts's `throw`. */
const THROW_LINE =
  lib(0)
    .split('\n')
    .findIndex((line) => line.includes('throw new')) + 1;

/** main.ts: prints the answer, and whether this process loaded esbuild (seen from outside the hook). */
const MAIN_SOURCE = `import { sep } from 'node:path';
import { answerOf, type Question } from './lib';

const question: Question = { text: process.argv[2] ?? 'ask', asked: Date.now() };
const esbuild = Object.keys(require.cache).some((file) =>
  file.endsWith(['', 'esbuild', 'lib', 'main.js'].join(sep)),
);
console.log(JSON.stringify({ answer: answerOf(question), esbuild }));
`;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The files the hook reports it compiled (its misses). */
  compiled: string[];
}

/** `node -r <hook> main.ts [arg]`, with the hook reporting its misses. */
function run(arg?: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-r', HOOK, MAIN, ...(arg ? [arg] : [])], {
      env: { ...process.env, WI_TS_REGISTER_CACHE: cache, WI_TS_REGISTER_REPORT: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const compiled = [...stderr.matchAll(/^ts-register: compiled (.+) \((.+)\)$/gm)].map(
        ([, file, why]) => `${file} (${why})`,
      );
      resolve({ code, stdout, stderr, compiled });
    });
  });
}

/** What main.ts printed. */
const printed = (result: Run) => {
  expect({ code: result.code, stderr: result.stderr }).toMatchObject({ code: 0 });
  return JSON.parse(result.stdout) as { answer: number; esbuild: boolean };
};

/** The cache's entries, with the source each holds (lib's alone has the error's text). */
function entries(): { file: string; of: 'main' | 'lib' }[] {
  return readdirSync(cache).map((name) => {
    const file = join(cache, name);
    expect(name).toMatch(/^[0-9a-f]{64}\.js$/);
    return { file, of: readFileSync(file, 'utf8').includes('asked to throw') ? 'lib' : 'main' };
  });
}

beforeAll(() => {
  mkdirSync(app);
  writeFileSync(LIB, lib(42));
  writeFileSync(MAIN, MAIN_SOURCE);
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

it('compiles a program once: the next child runs it from the cache without loading esbuild', async () => {
  const first = await run();
  expect(printed(first)).toEqual({ answer: 42, esbuild: true });
  expect(first.compiled.sort()).toEqual([`${LIB} (not cached)`, `${MAIN} (not cached)`]);
  expect(
    entries()
      .map(({ of }) => of)
      .sort(),
  ).toEqual(['lib', 'main']);

  const second = await run();
  expect(printed(second)).toEqual({ answer: 42, esbuild: false });
  expect(second.compiled).toEqual([]);
});

it('compiles an edited file again, and only that file', async () => {
  writeFileSync(LIB, lib(7));
  const edited = await run();
  expect(printed(edited)).toEqual({ answer: 7, esbuild: true });
  expect(edited.compiled).toEqual([`${LIB} (not cached)`]);
  expect(printed(await run())).toEqual({ answer: 7, esbuild: false });
});

it('compiles a damaged entry again and replaces it', async () => {
  for (const { file, of } of entries()) {
    const text = readFileSync(file, 'utf8');
    // lib's entries: valid JavaScript under the right header, which a hook that trusted it would
    // run; main's: cut in the middle, as a full disk leaves a file.
    writeFileSync(
      file,
      of === 'lib'
        ? `${text.slice(0, text.indexOf('\n'))}\nexports.answerOf = () => -1;\n`
        : text.slice(0, text.length / 2),
    );
  }
  const repaired = await run();
  expect(printed(repaired)).toEqual({ answer: 7, esbuild: true });
  expect(repaired.compiled.sort()).toEqual([
    `${LIB} (cache entry corrupt)`,
    `${MAIN} (cache entry corrupt)`,
  ]);
  const after = await run();
  expect(printed(after)).toEqual({ answer: 7, esbuild: false });
  expect(after.compiled).toEqual([]);
});

it('children starting at once on an empty cache all run and leave whole entries, no temporary file', async () => {
  rmSync(cache, { recursive: true });
  writeFileSync(LIB, lib(5));
  const runs = await Promise.all(Array.from({ length: 4 }, () => run()));
  for (const result of runs) expect(printed(result).answer).toBe(5);
  expect(readdirSync(cache).filter((name) => !name.endsWith('.js'))).toEqual([]);
  const next = await run();
  expect(printed(next)).toEqual({ answer: 5, esbuild: false });
  expect(next.compiled).toEqual([]);
});

it("a thrown error's stack names the .ts file and line, freshly compiled and from the cache", async () => {
  rmSync(cache, { recursive: true });
  for (const misses of [2, 0]) {
    const thrown = await run('throw');
    expect(thrown.code).toBe(1);
    expect(thrown.compiled).toHaveLength(misses);
    expect(thrown.stderr).toContain('Error: asked to throw');
    expect(thrown.stderr).toContain(`at answerOf (${LIB}:${THROW_LINE}:`);
  }
});
