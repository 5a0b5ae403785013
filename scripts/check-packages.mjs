#!/usr/bin/env node
// Lints what users would install: builds and packs every published package, then runs publint
// (strict: warnings fail) and arethetypeswrong on each tarball. Exits 1 on any problem.
// The node16 profile: TypeScript 6 no longer offers `moduleResolution: node10`.
import { checkPackage, createPackageFromTarballData } from '@arethetypeswrong/core';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';
import { packAll, packedIn } from './pack.mjs';

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

/**
 * Problems arethetypeswrong reports for one tarball, as printable lines, under its CLI's node16
 * profile (every resolution but node10, which TypeScript 6 no longer offers). In this process:
 * the CLI run once per tarball spent most of its time starting TypeScript again (about 64 s of CPU
 * for the packages against 10 s here).
 */
export async function attwProblems(pkg) {
  const tarball = new Uint8Array(readFileSync(pkg.tarball));
  const analysis = await checkPackage(createPackageFromTarballData(tarball));
  if (!analysis.types) return ['NoTypes: the package ships no type declarations'];
  return analysis.problems
    .filter((problem) => !('resolutionKind' in problem) || problem.resolutionKind !== 'node10')
    .map(({ kind, ...where }) =>
      `${kind}: ${Object.entries(where)
        .map(([field, value]) => `${field} ${value}`)
        .join(', ')}`.trim(),
    );
}

/** Both linters' problems for `pkg`. */
async function problemsOf(pkg) {
  return [
    ...(await publintProblems(pkg)).map((p) => `publint ${p}`),
    ...(await attwProblems(pkg)).map((p) => `attw ${p}`),
  ];
}

/** `pkgs`' problems, in their order. */
async function checkAll(pkgs) {
  const report = [];
  for (const pkg of pkgs) report.push({ ...pkg, problems: await problemsOf(pkg) });
  return report;
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
