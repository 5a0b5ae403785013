/**
 * docs/providers.md's "Every preset at a glance" table, held against the package it describes:
 * one row per preset factory `@webhook-idempotency/providers` exports and none for a name it does
 * not; each row's retention, handshake and batch what the preset built from minimal valid options
 * says; each SDK the "Judged by" and "Event types" columns name a devDependency of the package at
 * exactly that version, and each judge imported, with the functions named, by a test of that
 * preset. A preset added to the package fails here until it has its row and its options below.
 */
import { build, factories, manifest, OPTIONS, page, presetTests, read, rows } from './preset-table';

/** GitHub's anchor of a heading: lower case, punctuation dropped, each space a hyphen. */
const anchorOf = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^\w\- ]/g, '')
    .replace(/ /g, '-');
const anchors = new Set([...page.matchAll(/^#{2,3} (.+)$/gm)].map((match) => anchorOf(match[1]!)));

const PACKAGE = /^((?:@[\w.-]+\/)?[\w.-]+)@(\d[\w.-]*)$/;
const spans = (text: string) => [...text.matchAll(/`([^`]+)`/g)].map((match) => match[1]!);

/** The SDKs a cell names, each `package@version` opening a `;` part, with the code spans after it. */
function sdksOf(cell: string): Array<{ name: string; version: string; functions: string[] }> {
  return cell.split(';').flatMap((part) => {
    const [first, ...rest] = spans(part);
    const named = first === undefined ? null : PACKAGE.exec(first);
    return named ? [{ name: named[1]!, version: named[2]!, functions: rest }] : [];
  });
}

/**
 * The type names the entry re-exports through preset-types.ts: those it names one by one, and
 * every type declared by a module it re-exports whole (`export type * from './x'`).
 */
const entryTypes = (() => {
  const text = read('packages/providers/src/preset-types.ts');
  const names = new Set<string>();
  for (const [, list = ''] of text.matchAll(/export type \{([^}]*)\}/g))
    for (const name of list.split(',')) if (name.trim() !== '') names.add(name.trim());
  for (const [, module = ''] of text.matchAll(/export type \* from '\.\/([\w-]+)'/g)) {
    const source = read(`packages/providers/src/${module}.ts`);
    for (const [, name = ''] of source.matchAll(/^export (?:type|interface) (\w+)/gm))
      names.add(name);
  }
  return names;
})();

/** Whether a test file builds the preset: imports its factory from the source, or calls it. */
function buildsPreset(text: string, preset: string): boolean {
  const imported = [...text.matchAll(/import\s*\{([^}]*)\}\s*from\s*'\.\.\/src'/g)].some((m) =>
    m[1]!.split(',').some((name) => name.trim() === preset),
  );
  return imported || text.includes(`providers.${preset}(`);
}

/** Whether a test file imports the package or one of its subpaths. */
const importsPackage = (text: string, name: string) =>
  [...text.matchAll(/from\s+'([^']+)'/g)].some(
    (m) => m[1] === name || m[1]!.startsWith(`${name}/`),
  );

describe('docs/providers.md: every preset at a glance', () => {
  it('has one row per exported preset factory, none for a name the package does not export, none twice', () => {
    const named = rows.map((row) => row.preset);
    expect([...factories.keys()].filter((name) => !named.includes(name))).toEqual([]);
    expect(named.filter((name) => !factories.has(name))).toEqual([]);
    expect(named.filter((name, index) => named.indexOf(name) !== index)).toEqual([]);
  });

  it('counts them where the READMEs give a number: every factory but `hmac`, the builder', () => {
    const presets = factories.size - 1;
    expect(factories.has('hmac')).toBe(true);
    expect(read('README.md')).toContain(`**${presets} provider presets**`);
    expect(read('README.md')).toContain(`the ${presets} presets:`);
    expect(read('packages/providers/README.md')).toContain(`${presets} presets, from`);
  });

  it('links each row to a section of the page', () => {
    expect(rows.filter((row) => !anchors.has(row.anchor)).map((row) => row.preset)).toEqual([]);
  });

  it('builds every factory from the minimal options of this test', () => {
    expect([...factories.keys()].filter((name) => !(name in OPTIONS))).toEqual([]);
    for (const name of factories.keys()) expect(typeof build(name).provider).toBe('string');
  });

  it.each(rows.map((row) => [row.preset, row] as const))(
    '%s: its retention is the preset’s, or the one the caller gives',
    (name, row) => {
      if (row.retention.startsWith('yours')) {
        expect(build(name, { retentionDays: 11 }).retentionDays).toBe(11);
      } else {
        expect(build(name).retentionDays).toBe(Number(row.retention));
      }
    },
  );

  it.each(rows.map((row) => [row.preset, row] as const))(
    '%s: its handshake and batch cells say what the preset does',
    (name, row) => {
      const preset = build(name);
      const answers = preset.handshake !== undefined || preset.challenge !== undefined;
      expect({ answers, cell: row.handshake }).toEqual({
        answers: row.handshake.startsWith('answered by the preset'),
        cell: answers
          ? expect.stringMatching(/^answered by the preset: \S/)
          : expect.stringMatching(/^none\b/),
      });
      const batched = typeof preset.items === 'function';
      expect(row.batch).toMatch(batched ? /^per-item\b/ : /^no$/);
    },
  );

  it.each(rows.map((row) => [row.preset, row] as const))(
    '%s: its freshness window is a number of seconds or says why there is none',
    (_name, row) => {
      expect(row.window).toMatch(/^(\d+\b|none\b)/);
    },
  );

  it.each(rows.map((row) => [row.preset, row] as const))(
    '%s: its judge is an SDK pinned in devDependencies and used by its tests, a documented vector, or plainly none',
    (name, row) => {
      const sdks = sdksOf(row.judgedBy);
      if (sdks.length === 0) {
        expect(row.judgedBy).toMatch(/^(documented vector|no SDK or vector): \S/);
        return;
      }
      for (const sdk of sdks) {
        expect({ sdk: sdk.name, version: manifest.devDependencies[sdk.name] }).toEqual({
          sdk: sdk.name,
          version: sdk.version,
        });
        const judges = presetTests.filter(
          (file) => buildsPreset(file.text, name) && importsPackage(file.text, sdk.name),
        );
        expect({ sdk: sdk.name, tests: judges.length }).not.toEqual({ sdk: sdk.name, tests: 0 });
        const called = (fn: string) =>
          judges.some((file) => new RegExp(`\\b${fn.split('.').pop()}\\b`).test(file.text));
        expect({ sdk: sdk.name, missing: sdk.functions.filter((fn) => !called(fn)) }).toEqual({
          sdk: sdk.name,
          missing: [],
        });
      }
    },
  );

  it.each(rows.map((row) => [row.preset, row] as const))(
    '%s: its event types are an SDK pinned in devDependencies with an entry, or a type the package exports',
    (_name, row) => {
      const sdks = sdksOf(row.types);
      for (const sdk of sdks) {
        expect({ sdk: sdk.name, version: manifest.devDependencies[sdk.name] }).toEqual({
          sdk: sdk.name,
          version: sdk.version,
        });
        const entries = spans(row.types).filter((span) => span.startsWith('types/'));
        expect(entries.filter((entry) => !(`./${entry}` in manifest.exports))).toEqual([]);
        expect(entries.length).toBeGreaterThan(0);
      }
      const minimal = spans(row.types).filter((span) => span.endsWith('MinimalEvents'));
      expect(minimal.filter((type) => !entryTypes.has(type))).toEqual([]);
      if (sdks.length === 0 && minimal.length === 0) expect(row.types).toMatch(/^yours\b/);
    },
  );
});
