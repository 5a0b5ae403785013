/**
 * Every code block in the docs is run by a test or copied from a tested file (issue 5).
 *
 * Scans the files of helpers/documents.ts (README.md, docs/**\/*.md but the generated docs/api,
 * packages/*\/README.md, examples/*\/README.md and
 * benchmarks/README.md). A ts/typescript/js/javascript block must follow
 * `<!-- snippet: <repo path>#<region> -->` (or `<!-- snippet: <repo path> -->` for a whole file)
 * and equal that region; a sql block must follow `<!-- ddl: <dialect> -->` and equal
 * `Schema.statements(dialect)`. mermaid and shell blocks are free. See examples/snippets/README.md.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  checkDocument,
  ddlText,
  findBlocks,
  formatProblems,
  readRegion,
  regionNames,
  type CheckedBlock,
  type Problem,
} from './helpers/check-docs';
import { documentPaths } from './helpers/documents';

const ROOT = join(__dirname, '..', '..', '..');
const SNIPPETS = join(ROOT, 'examples', 'snippets');

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const documents = documentPaths(ROOT);

const results = documents.map((file) => ({ file, ...checkDocument(file, read(file), read) }));
const problems: Problem[] = results.flatMap((r) => r.problems);
const checked: CheckedBlock[] = results.flatMap((r) => r.checked);

describe('the docs and READMEs', () => {
  it('include the pages the code links to', () => {
    for (const page of [
      'README.md',
      'docs/README.md',
      'docs/quickstart.md',
      'docs/adapters/express.md',
      'docs/adapters/fastify.md',
      'docs/adapters/koa.md',
      'docs/adapters/nestjs.md',
      'docs/guides/raw-body.md',
      'docs/reference/configuration.md',
      'docs/reference/errors.md',
      'docs/providers.md',
      'docs/stores.md',
    ]) {
      expect(documents).toContain(page);
    }
  });

  it('have every ts/js block copied from a tested region and every sql block equal to Schema.statements', () => {
    if (problems.length > 0)
      throw new Error(
        `${problems.length} doc block(s) out of step with the code:\n\n${formatProblems(problems)}`,
      );
    expect(checked.length).toBeGreaterThan(0);
  });

  // One test per checked block, so the run lists what is covered.
  it.each(checked.map((b) => [`${b.file}:${b.line}`, b.source] as const))(
    '%s ← %s',
    () => undefined,
  );
});

describe('examples/snippets/src', () => {
  const sources = readdirSync(join(SNIPPETS, 'src'))
    .filter((name) => name.endsWith('.ts'))
    .map((name) => `examples/snippets/src/${name}`);
  const tests = readdirSync(join(SNIPPETS, 'test'))
    .filter((name) => name.endsWith('.test.ts'))
    .map((name) => readFileSync(join(SNIPPETS, 'test', name), 'utf8'));

  it.each(sources)(
    '%s is imported by a test in examples/snippets/test (so its code runs)',
    (source) => {
      const module = source.replace(/^examples\/snippets\//, '../').replace(/\.ts$/, '');
      expect(tests.some((text) => text.includes(`from '${module}'`))).toBe(true);
    },
  );

  it.each(sources)('%s has no region that no doc shows', (source) => {
    const used = new Set(
      checked
        .filter((b) => b.source.startsWith(`${source}#`))
        .map((b) => b.source.slice(source.length + 1)),
    );
    const wholeFile = checked.some((b) => b.source === source);
    const unused = wholeFile
      ? []
      : [...regionNames(read(source))].filter((name) => !used.has(name));
    expect(unused).toEqual([]);
  });
});

describe('the checker', () => {
  const source = [
    "import { a } from 'a';",
    '// #region demo',
    "import { b } from 'b';",
    '// #endregion demo',
    '',
    'export function f() {',
    '  // #region demo',
    '  const x = b(a);',
    '  if (x) {',
    '    x();',
    '  }',
    '  // #endregion demo',
    '}',
  ].join('\n');
  const files: Record<string, string> = { 'examples/snippets/src/demo.ts': source };
  const readFake = (path: string) => {
    const text = files[path];
    if (text === undefined) throw new Error(`ENOENT: ${path}`);
    return text;
  };
  const doc = (marker: string, language: string, body: string) =>
    `# Title\n\n${marker}\n\`\`\`${language}\n${body}\n\`\`\`\n`;
  const region = "import { b } from 'b';\n\nconst x = b(a);\nif (x) {\n  x();\n}";

  it('joins the segments of a region, each dedented, with a blank line', () => {
    expect(readRegion(source, 'demo')).toBe(region);
    expect(() => readRegion(source, 'other')).toThrow(/no region other/);
    expect(() => readRegion('// #region open\nx', 'open')).toThrow(/not closed/);
  });

  it('accepts a block equal to its region', () => {
    const { problems: found, checked: ok } = checkDocument(
      'doc.md',
      doc('<!-- snippet: examples/snippets/src/demo.ts#demo -->', 'ts', region),
      readFake,
    );
    expect(found).toEqual([]);
    expect(ok).toEqual([
      { file: 'doc.md', line: 4, language: 'ts', source: 'examples/snippets/src/demo.ts#demo' },
    ]);
  });

  it('names file, line and the fix when a block drifts from its region', () => {
    const drifted = region.replace('x();', 'x(1);');
    const { problems: found } = checkDocument(
      'doc.md',
      doc('<!-- snippet: examples/snippets/src/demo.ts#demo -->', 'ts', drifted),
      readFake,
    );
    expect(formatProblems(found)).toMatch(
      /^doc\.md:4: the block differs from examples\/snippets\/src\/demo\.ts#demo; first difference at line 5/,
    );
    expect(formatProblems(found)).toMatch(/Fix: copy the region into the block/);
  });

  it('refuses a ts or js block without a marker, and a marker to a missing region or an untested path', () => {
    const bare = checkDocument('doc.md', doc('', 'js', 'run();'), readFake).problems;
    expect(formatProblems(bare)).toMatch(
      /^doc\.md:4: this js block has no <!-- snippet: … --> marker\. Fix:/,
    );
    const missing = checkDocument(
      'doc.md',
      doc('<!-- snippet: examples/snippets/src/demo.ts#nope -->', 'ts', 'x'),
      readFake,
    ).problems;
    expect(formatProblems(missing)).toMatch(/no region nope/);
    const untested = checkDocument(
      'doc.md',
      doc('<!-- snippet: docs/code.ts#demo -->', 'ts', 'x'),
      readFake,
    ).problems;
    expect(formatProblems(untested)).toMatch(/not a type-checked, tested file/);
  });

  it('checks sql blocks against Schema.statements and allows mermaid and sh', () => {
    expect(
      checkDocument('doc.md', doc('<!-- ddl: sqlite -->', 'sql', ddlText('sqlite')), readFake)
        .problems,
    ).toEqual([]);
    expect(
      checkDocument('doc.md', doc('<!-- ddl:sqlite -->', 'sql', ddlText('sqlite')), readFake)
        .problems,
    ).toEqual([]);
    const drifted = checkDocument(
      'doc.md',
      doc('<!-- ddl: sqlite -->', 'sql', ddlText('sqlite').replace('INTEGER', 'BIGINT')),
      readFake,
    ).problems;
    expect(formatProblems(drifted)).toMatch(
      /^doc\.md:4: the sqlite DDL differs from Schema\.statements\('sqlite'\)/,
    );
    expect(checkDocument('doc.md', doc('', 'sql', 'SELECT 1;'), readFake).problems).toHaveLength(1);
    expect(
      checkDocument('doc.md', doc('', 'mermaid', 'graph LR; a-->b'), readFake).problems,
    ).toEqual([]);
    expect(checkDocument('doc.md', doc('', 'sh', 'pnpm test'), readFake).problems).toEqual([]);
    expect(checkDocument('doc.md', doc('', '', 'anything'), readFake).problems).toHaveLength(1);
  });

  it('reports a marker that no block follows', () => {
    const { danglingMarkers } = findBlocks(
      '<!-- snippet: examples/snippets/src/demo.ts#demo -->\nSome prose.\n',
    );
    expect(danglingMarkers).toEqual([1]);
  });
});
