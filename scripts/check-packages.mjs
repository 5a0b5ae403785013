#!/usr/bin/env node
// Lints what users would install: builds and packs every published package, then runs publint
// (strict: warnings fail) and arethetypeswrong on each tarball. Exits 1 on any problem.
// The node16 profile: TypeScript 6 no longer offers `moduleResolution: node10`.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';
import { packAll, packedIn, root } from './pack.mjs';

const run = promisify(execFile);

/** Problems publint reports for one tarball, as printable lines. */
export async function publintProblems(pkg) {
  const tarball = readFileSync(pkg.tarball);
  const { messages, pkg: manifest } = await publint({
    pack: {
      tarball: tarball.buffer.slice(tarball.byteOffset, tarball.byteOffset + tarball.byteLength),
    },
    strict: true,
    level: 'suggestion',
  });
  return messages.map(
    (message) => `${message.type}: ${formatMessage(message, manifest) ?? message.code}`,
  );
}

/** Problems arethetypeswrong reports for one tarball, as printable lines. */
export async function attwProblems(pkg) {
  const attw = join(root, 'node_modules', '.bin', 'attw');
  try {
    await run(attw, [pkg.tarball, '--profile', 'node16', '--format', 'json'], {
      encoding: 'utf8',
      maxBuffer: 16 * 1024 * 1024,
    });
    return [];
  } catch (error) {
    const report = JSON.parse(error.stdout || '{}');
    const problems = report.analysis?.problems ?? [];
    return problems.length
      ? problems.map((p) => `${p.kind}: ${p.entrypoint ?? ''} ${p.resolutionKind ?? ''}`.trim())
      : [String(error.stderr || error.message)];
  }
}

/** Both linters' problems for `pkg`. */
async function problemsOf(pkg) {
  return [
    ...(await publintProblems(pkg)).map((p) => `publint ${p}`),
    ...(await attwProblems(pkg)).map((p) => `attw ${p}`),
  ];
}

/** `pkgs`' problems, in their order, checked two at a time (each attw run is a process of its own). */
async function checkAll(pkgs) {
  const problems = new Array(pkgs.length);
  let next = 0;
  const worker = async () => {
    while (next < pkgs.length) {
      const index = next++;
      problems[index] = await problemsOf(pkgs[index]);
    }
  };
  await Promise.all([worker(), worker()]);
  return pkgs.map((pkg, index) => ({ ...pkg, problems: problems[index] }));
}

// `--out <dir>` keeps the tarballs there and prints a JSON report instead; `--packed <dir>` checks
// the tarballs already packed there (test-support/packs.ts) and prints that report (the consumer
// tests use it).
if (process.argv[1] === new URL(import.meta.url).pathname) {
  const packed = process.argv.indexOf('--packed');
  const out = packed > 0 ? packed : process.argv.indexOf('--out');
  const destination = out > 0 ? process.argv[out + 1] : mkdtempSync(join(tmpdir(), 'wi-packs-'));
  let report = [];
  try {
    report = await checkAll(packed > 0 ? packedIn(destination) : packAll(destination));
    if (out < 0)
      for (const pkg of report)
        console.log(
          pkg.problems.length
            ? `✗ ${pkg.name}\n  ${pkg.problems.join('\n  ')}`
            : `✓ ${pkg.name}: publint, attw`,
        );
  } finally {
    if (out < 0) rmSync(destination, { recursive: true, force: true });
  }
  if (out > 0) console.log(JSON.stringify(report));
  process.exit(report.some((pkg) => pkg.problems.length) && out < 0 ? 1 : 0);
}
