/**
 * @module The docs' code-block check: every TypeScript/JavaScript block of the Markdown must be a
 * copy of a region of a tested file, every SQL block the DDL `Schema.statements` emits. Pure
 * functions over text, so that test/docs.test.ts can run them on the real docs and on small
 * drifted examples.
 */
import { Schema, type SqlDialect } from '@webhook-idempotency/sql';

/** Languages whose blocks must carry a `<!-- snippet: … -->` marker. */
export const CODE_LANGUAGES: ReadonlySet<string> = new Set([
  'ts',
  'typescript',
  'js',
  'javascript',
  'toml',
]);
/** Languages allowed without a marker: diagrams and shell commands (not code we ship). */
export const FREE_LANGUAGES: ReadonlySet<string> = new Set([
  'mermaid',
  'sh',
  'bash',
  'shell',
  'text',
]);
const DIALECTS: readonly SqlDialect[] = ['postgres', 'mysql', 'sqlite'];

/**
 * Where a snippet may live: files that the root `tsc` checks and jest runs (packages and examples,
 * `src` or `test`, and an example's `next.config.ts`, which its test builds with), the consumer
 * apps that tests/consumers runs from the packed tarballs, the server files tests/runtimes runs in
 * Bun and Deno, and an example's wrangler.toml (wrangler builds and migrates with it in that
 * example's test).
 */
export const SNIPPET_SOURCE =
  /^((packages|examples)\/[^/]+\/(src|test)\/.+\.ts|examples\/[^/]+\/next\.config\.ts|tests\/consumers\/apps\/[^/]+\.[cm]js|tests\/runtimes\/apps\/[^/]+\.ts|examples\/[^/]+\/wrangler\.toml)$/;

const SNIPPET_MARKER = /^<!--\s*snippet:\s*([^#\s]+)(?:#([\w-]+))?\s*-->$/;
const DDL_MARKER = /^<!--\s*ddl:\s*(\w+)\s*-->$/;
const ANY_MARKER = /^<!--\s*(snippet|ddl):/;
const REGION = /^\s*\/\/ #(region|endregion) ([\w-]+)\s*$/;

/** One fenced block of a Markdown file. */
export interface Block {
  /** 1-based line of the opening fence. */
  readonly line: number;
  /** The info string's first word, lower-cased (`''` when there is none). */
  readonly language: string;
  /** The block's text, without the fences and without the fence's indentation. */
  readonly text: string;
  /** The marker comment right before the block (blank lines allowed between), if any. */
  readonly marker: string | undefined;
}

/** A problem, with where it is and how to fix it. */
export interface Problem {
  readonly file: string;
  readonly line: number;
  readonly message: string;
}

/** A block that was checked against its source. */
export interface CheckedBlock {
  readonly file: string;
  readonly line: number;
  readonly language: string;
  /** `path#region`, `path` or `ddl:dialect`. */
  readonly source: string;
}

/** The fenced blocks of a Markdown text, with the marker comment preceding each. */
export function findBlocks(markdown: string): { blocks: Block[]; danglingMarkers: number[] } {
  const lines = markdown.split('\n');
  const blocks: Block[] = [];
  const danglingMarkers: number[] = [];
  let pendingMarker: { text: string; line: number } | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const open = /^( {0,3})(`{3,}|~{3,})\s*([^\s`]*)/.exec(line);
    if (!open) {
      const trimmed = line.trim();
      if (ANY_MARKER.test(trimmed)) {
        if (pendingMarker) danglingMarkers.push(pendingMarker.line);
        pendingMarker = { text: trimmed, line: i + 1 };
      } else if (trimmed !== '' && pendingMarker) {
        danglingMarkers.push(pendingMarker.line);
        pendingMarker = undefined;
      }
      continue;
    }
    const [, indent = '', fence = '', info = ''] = open;
    const body: string[] = [];
    let j = i + 1;
    const close = new RegExp(`^ {0,3}${fence[0] === '`' ? '`' : '~'}{${fence.length},}\\s*$`);
    while (j < lines.length && !close.test(lines[j]!)) {
      const content = lines[j]!;
      body.push(content.startsWith(indent) ? content.slice(indent.length) : content.trimStart());
      j++;
    }
    blocks.push({
      line: i + 1,
      language: info.toLowerCase(),
      text: body.join('\n'),
      marker: pendingMarker?.text,
    });
    pendingMarker = undefined;
    i = j;
  }
  if (pendingMarker) danglingMarkers.push(pendingMarker.line);
  return { blocks, danglingMarkers };
}

function dedent(lines: string[]): string[] {
  const indents = lines.filter((l) => l.trim() !== '').map((l) => /^ */.exec(l)![0].length);
  const cut = indents.length ? Math.min(...indents) : 0;
  return lines.map((l) => (l.trim() === '' ? '' : l.slice(cut)));
}

function trimBlankEnds(lines: string[]): string[] {
  let start = 0;
  let end = lines.length;
  while (start < end && lines[start]!.trim() === '') start++;
  while (end > start && lines[end - 1]!.trim() === '') end--;
  return lines.slice(start, end);
}

/**
 * The text of region `name` in a source file: the lines between `// #region name` and
 * `// #endregion name`, dedented, without any region marker lines. A region may come in several
 * segments (imports at the top, the rest inside a function that a test calls): each segment is
 * dedented on its own and the segments are joined with one blank line. Without `name`, the whole
 * file without marker lines.
 * @throws {Error} when the region is missing or not closed.
 */
export function readRegion(source: string, name?: string): string {
  const lines = source.replace(/\n$/, '').split('\n');
  if (name === undefined) return trimBlankEnds(lines.filter((l) => !REGION.test(l))).join('\n');
  const segments: string[][] = [];
  let current: string[] | undefined;
  for (const line of lines) {
    const marker = REGION.exec(line);
    if (marker) {
      if (marker[2] !== name) continue;
      if (marker[1] === 'region') {
        if (current) throw new Error(`region ${name} opened twice without #endregion`);
        current = [];
      } else {
        if (!current) throw new Error(`#endregion ${name} without #region`);
        segments.push(current);
        current = undefined;
      }
      continue;
    }
    current?.push(line);
  }
  if (current) throw new Error(`region ${name} is not closed (// #endregion ${name})`);
  if (segments.length === 0)
    throw new Error(`no region ${name} (// #region ${name} … // #endregion ${name})`);
  return segments.map((segment) => trimBlankEnds(dedent(segment)).join('\n')).join('\n\n');
}

/** Every region name defined in a source file. */
export function regionNames(source: string): Set<string> {
  const names = new Set<string>();
  for (const line of source.split('\n')) {
    const marker = REGION.exec(line);
    if (marker?.[1] === 'region') names.add(marker[2]!);
  }
  return names;
}

/** The DDL block text for a dialect: exactly what `Schema.statements` emits, `;`-terminated. */
export function ddlText(dialect: SqlDialect): string {
  return `${Schema.statements(dialect).join(';\n\n')};`;
}

function firstDifference(actual: string, expected: string): string {
  const a = actual.split('\n');
  const e = expected.split('\n');
  for (let i = 0; i < Math.max(a.length, e.length); i++) {
    if (a[i] !== e[i]) {
      return `first difference at line ${i + 1} of the block:\n    doc:    ${JSON.stringify(a[i] ?? '<end of block>')}\n    source: ${JSON.stringify(e[i] ?? '<end of region>')}`;
    }
  }
  return 'they differ only in trailing whitespace';
}

/**
 * Checks one Markdown file. `read(path)` returns a repository file's text (or throws when it
 * does not exist).
 */
export function checkDocument(
  file: string,
  markdown: string,
  read: (path: string) => string,
): { problems: Problem[]; checked: CheckedBlock[] } {
  const problems: Problem[] = [];
  const checked: CheckedBlock[] = [];
  const { blocks, danglingMarkers } = findBlocks(markdown);
  for (const line of danglingMarkers) {
    problems.push({
      file,
      line,
      message:
        'this snippet/ddl marker is not followed by a fenced block: put it on the line right before the block, or remove it',
    });
  }
  for (const block of blocks) {
    const at = { file, line: block.line };
    const text = block.text.replace(/\s+$/, '');
    const snippet = block.marker ? SNIPPET_MARKER.exec(block.marker) : null;
    const ddl = block.marker ? DDL_MARKER.exec(block.marker) : null;
    if (block.marker && !snippet && !ddl) {
      problems.push({
        ...at,
        message: `malformed marker ${block.marker}: write <!-- snippet: path/from/repo/root.ts#region --> or <!-- ddl: postgres|mysql|sqlite -->`,
      });
      continue;
    }
    if (block.language === 'sql') {
      const dialect = ddl?.[1] as SqlDialect | undefined;
      if (!dialect || !DIALECTS.includes(dialect)) {
        problems.push({
          ...at,
          message:
            'a sql block needs <!-- ddl: postgres|mysql|sqlite --> right before it, and then holds exactly Schema.statements(dialect) (SQL in prose belongs in `inline code`)',
        });
        continue;
      }
      const expected = ddlText(dialect);
      if (text !== expected) {
        problems.push({
          ...at,
          message: `the ${dialect} DDL differs from Schema.statements('${dialect}'); ${firstDifference(text, expected)}\n  Fix: replace the block with:\n${expected}`,
        });
        continue;
      }
      checked.push({ ...at, language: block.language, source: `ddl:${dialect}` });
      continue;
    }
    if (ddl) {
      problems.push({
        ...at,
        message: `a ddl marker belongs before a sql block, not a ${block.language || 'plain'} block`,
      });
      continue;
    }
    if (!snippet) {
      if (CODE_LANGUAGES.has(block.language)) {
        problems.push({
          ...at,
          message:
            `this ${block.language} block has no <!-- snippet: … --> marker. Fix: move the code into a region of a tested file ` +
            `(examples/snippets/src/*.ts, run by examples/snippets/test) and put <!-- snippet: examples/snippets/src/<file>.ts#<region> --> right before the block`,
        });
      } else if (!FREE_LANGUAGES.has(block.language)) {
        problems.push({
          ...at,
          message: `a block in ${block.language ? `'${block.language}'` : 'no language'}: tag it with one of ${[...FREE_LANGUAGES].join(', ')}, or make it a ts block with a snippet marker`,
        });
      }
      continue;
    }
    if (block.language === 'mermaid') {
      problems.push({ ...at, message: 'mermaid blocks take no snippet marker' });
      continue;
    }
    const [, path = '', region] = snippet;
    const source = region ? `${path}#${region}` : path;
    if (!SNIPPET_SOURCE.test(path)) {
      problems.push({
        ...at,
        message: `snippet source ${path} is not a type-checked, tested file: use a .ts file under packages/*/{src,test} or examples/*/{src,test}, an example's next.config.ts or wrangler.toml, a consumer app in tests/consumers/apps, or a server file in tests/runtimes/apps`,
      });
      continue;
    }
    let expected: string;
    try {
      expected = readRegion(read(path), region);
    } catch (error) {
      problems.push({
        ...at,
        message: `snippet ${source}: ${(error as Error).message}. Fix the marker, or add the region to ${path}`,
      });
      continue;
    }
    if (text !== expected) {
      problems.push({
        ...at,
        message: `the block differs from ${source}; ${firstDifference(text, expected)}\n  Fix: copy the region into the block (or change the region and its test first, then copy). The region reads:\n${expected}`,
      });
      continue;
    }
    checked.push({ ...at, language: block.language, source });
  }
  return { problems, checked };
}

/** Problems as one readable message: `file:line: message`. */
export function formatProblems(problems: readonly Problem[]): string {
  return problems.map((p) => `${p.file}:${p.line}: ${p.message}`).join('\n\n');
}

/**
 * `markdown` with every snippet block replaced by its region's current text (what the check
 * expects), for `pnpm docs:snippets` after a region changed. Blocks whose source is missing are
 * left as they are, for the check to report.
 */
export function syncDocument(markdown: string, read: (path: string) => string): string {
  const lines = markdown.split('\n');
  const { blocks } = findBlocks(markdown);
  for (const block of [...blocks].reverse()) {
    const snippet = block.marker ? SNIPPET_MARKER.exec(block.marker) : null;
    if (!snippet || !SNIPPET_SOURCE.test(snippet[1] ?? '')) continue;
    let expected: string;
    try {
      expected = readRegion(read(snippet[1]!), snippet[2]);
    } catch {
      continue;
    }
    const open = block.line - 1;
    const indent = /^ */.exec(lines[open]!)![0];
    let close = open + 1;
    while (close < lines.length && !/^ {0,3}(`{3,}|~{3,})\s*$/.test(lines[close]!)) close++;
    const body = expected.split('\n').map((line) => (line === '' ? '' : indent + line));
    lines.splice(open + 1, close - open - 1, ...body);
  }
  return lines.join('\n');
}
