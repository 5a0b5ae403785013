#!/usr/bin/env node
// Lints what users would install: builds and packs every published package, then runs publint
// (strict: warnings fail) and arethetypeswrong on each tarball. Exits 1 on any problem.
// The node16 profile: TypeScript 6 no longer offers `moduleResolution: node10`.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';
import { packAll, packedIn, root } from './pack.mjs';

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
export function attwProblems(pkg) {
  const attw = join(root, 'node_modules', '.bin', 'attw');
  try {
    execFileSync(attw, [pkg.tarball, '--profile', 'node16', '--format', 'json'], {
      encoding: 'utf8',
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

// `--out <dir>` keeps the tarballs there and prints a JSON report instead; `--packed <dir>` checks
// the tarballs already packed there (test-support/packs.ts) and prints that report (the consumer
// tests use it).
if (process.argv[1] === new URL(import.meta.url).pathname) {
  const packed = process.argv.indexOf('--packed');
  const out = packed > 0 ? packed : process.argv.indexOf('--out');
  const destination = out > 0 ? process.argv[out + 1] : mkdtempSync(join(tmpdir(), 'wi-packs-'));
  const report = [];
  try {
    for (const pkg of packed > 0 ? packedIn(destination) : packAll(destination)) {
      const problems = [
        ...(await publintProblems(pkg)).map((p) => `publint ${p}`),
        ...attwProblems(pkg).map((p) => `attw ${p}`),
      ];
      report.push({ ...pkg, problems });
      if (out < 0)
        console.log(
          problems.length
            ? `✗ ${pkg.name}\n  ${problems.join('\n  ')}`
            : `✓ ${pkg.name}: publint, attw`,
        );
    }
  } finally {
    if (out < 0) rmSync(destination, { recursive: true, force: true });
  }
  if (out > 0) console.log(JSON.stringify(report));
  process.exit(report.some((pkg) => pkg.problems.length) && out < 0 ? 1 : 0);
}
