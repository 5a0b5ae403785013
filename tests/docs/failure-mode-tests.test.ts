/**
 * The tables of closed failure modes in docs/guarantees.md name, on each row, the test that failed
 * before the fix and passes now. This checks every file a row names is there and is a test jest
 * collects, so a renamed or deleted test cannot leave a row pointing nowhere.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');
const guarantees = readFileSync(join(root, 'docs', 'guarantees.md'), 'utf8');

/** The rows of every "Failure modes … closed" table: their last cell names the tests. */
function closedRows(markdown: string): string[] {
  const sections = markdown.split(/^## /m).filter((s) => /^Failure modes .*closed/i.test(s));
  return sections.flatMap((section) =>
    section.split('\n').filter((line) => /^\| \d+ \|/.test(line)),
  );
}

/** The test files a row's last cell names, with the `packages/` prefix where a row leaves it out. */
function testsOf(row: string): string[] {
  const cells = row.split('|').map((cell) => cell.trim());
  const last = cells[cells.length - 2] ?? '';
  const named = last.match(/[\w./{},-]+\.test\.ts/g) ?? [];
  return named.flatMap((path) => {
    const braces = path.match(/^(.*)\{([^}]+)\}(.*)$/);
    const paths = braces
      ? braces[2]!.split(',').map((part) => `${braces[1]}${part}${braces[3]}`)
      : [path];
    return paths.map((p) => (/^(packages|tests|examples)\//.test(p) ? p : join('packages', p)));
  });
}

describe('docs/guarantees.md: the closed failure modes', () => {
  const rows = closedRows(guarantees);

  it('has its tables', () => {
    expect(rows.length).toBeGreaterThan(20);
  });

  it.each(rows.map((row) => [row.slice(0, 60), row]))('%s… names tests that exist', (_, row) => {
    const tests = testsOf(row);
    expect(tests.length).toBeGreaterThan(0);
    for (const test of tests)
      expect(existsSync(join(root, test)) ? test : `missing: ${test}`).toBe(test);
  });
});
