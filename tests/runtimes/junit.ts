/**
 * @module Reads the JUnit XML report `bun test` and `deno test` write: each test case by its full
 * name (the names of the describe blocks around it, then its own, joined by ` › `) with its
 * failure, if any.
 */

/** One test case of a report. */
export interface CaseResult {
  /** The runner's failure text (assertion, stack); undefined when it passed. */
  readonly failure?: string;
  /** The runner left it out. */
  readonly skipped: boolean;
}

const ENTITIES: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
};

/** XML text with its entity and character references resolved. */
function decodeXml(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (whole, ref: string) => {
    if (ref[0] !== '#') return ENTITIES[ref] ?? whole;
    const code =
      ref[1] === 'x' || ref[1] === 'X' ? Number.parseInt(ref.slice(2), 16) : Number(ref.slice(1));
    return String.fromCodePoint(code);
  });
}

function attributes(text: string): Record<string, string> {
  const found: Record<string, string> = {};
  for (const [, name, value] of text.matchAll(/([\w:-]+)="([^"]*)"/g))
    found[name!] = decodeXml(value!);
  return found;
}

/**
 * The test cases of a JUnit report by full name. The outermost `testsuite` of each file is the
 * file, and is not part of the name; the ones inside it are describe blocks.
 * @throws {Error} when two cases have the same full name (a result would be hidden).
 */
export function parseJunit(xml: string): Map<string, CaseResult> {
  const results = new Map<string, CaseResult>();
  const suites: string[] = [];
  let current: { name: string; failure?: string; skipped: boolean } | undefined;
  const tags = /<(\/?)(testsuites|testsuite|testcase|failure|error|skipped)\b([^>]*?)(\/?)>/g;
  const close = (testCase: NonNullable<typeof current>) => {
    if (results.has(testCase.name)) throw new Error(`two test cases are named ${testCase.name}`);
    results.set(testCase.name, {
      skipped: testCase.skipped,
      ...(testCase.failure !== undefined ? { failure: testCase.failure } : {}),
    });
  };
  for (let match = tags.exec(xml); match; match = tags.exec(xml)) {
    const [whole, closing, tag, attrs = '', selfClosing] = match;
    if (tag === 'testsuite') {
      if (closing) suites.pop();
      else if (!selfClosing) suites.push(attributes(attrs).name ?? '');
    } else if (tag === 'testcase') {
      if (closing) {
        if (current) close(current);
        current = undefined;
        continue;
      }
      const name = [...suites.slice(1), attributes(attrs).name ?? ''].join(' › ');
      current = { name, skipped: false };
      if (selfClosing) {
        close(current);
        current = undefined;
      }
    } else if (current && !closing && (tag === 'failure' || tag === 'error')) {
      const { message = '' } = attributes(attrs);
      let text = '';
      if (!selfClosing) {
        const end = xml.indexOf(`</${tag}>`, match.index + whole!.length);
        text = decodeXml(xml.slice(match.index + whole!.length, end === -1 ? undefined : end));
      }
      current.failure = [current.failure, text.trim() || message].filter(Boolean).join('\n');
    } else if (current && !closing && tag === 'skipped') {
      current.skipped = true;
    }
  }
  return results;
}
