/** @module Renders the hostile-input table for docs/guarantees.md from the case list, and swaps it in between its markers. */
import type { Expected, Family, HostileCase, Outcome } from './hostile-cases';

/** The markers that enclose the generated section in docs/guarantees.md. */
export const START_MARKER = '<!-- hostile-input:start -->';
/** See {@link START_MARKER}. */
export const END_MARKER = '<!-- hostile-input:end -->';

const FAMILY_NAMES: Record<Family, string> = { express: 'Express', fastify: 'Fastify', koa: 'Koa' };

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function answer(expected: Expected): string {
  if (expected.code)
    return `${expected.status} \`${expected.code.replace(/^ERR_IDEMPOTENCY_/, '')}\``;
  if (expected.replayed) return `${expected.status} replay`;
  return expected.by ? `${expected.status} (${expected.by})` : String(expected.status);
}

function answers(outcome: Outcome): string {
  return outcome.answers.map(answer).join(' → ');
}

function receipt(outcome: Outcome): string {
  return outcome.receipt === 'none' ? 'no' : outcome.receipt;
}

function overrides(testCase: HostileCase): string {
  return Object.entries(testCase.on ?? {})
    .map(
      ([family, outcome]) =>
        `; ${FAMILY_NAMES[family as Family]}: ${answers(outcome)}, ${outcome.runs} run(s), receipt ${receipt(outcome)}`,
    )
    .join('');
}

/** The whole generated section: heading, how to read it, and one row per case. */
export function renderHostileSection(cases: readonly HostileCase[]): string {
  const rows = cases.map(
    (c, i) =>
      `| ${i + 1} | ${cell(c.name)} | ${c.route} | ${cell(c.sent)} | ${cell(answers(c.expect) + overrides(c) + (c.today ? ` (**not yet**: today ${c.today})` : ''))} | ${c.expect.runs} | ${receipt(c.expect)} |`,
  );
  return [
    '## Hostile input',
    '',
    'Generated from `packages/reliability/src/hostile-cases.ts` by `packages/reliability/test/hostile-input.test.ts`',
    '(`WI_UPDATE_DOCS=1` rewrites it). Every row is sent to Express 5 and 4, Fastify 5 and 4 and Koa 3',
    'and 2, on `InMemoryStore` and on a SQLite file, and the test checks each answer, how often the',
    'handler ran, and the receipt afterwards (read with `find`). Across all of them: the process',
    'records no unhandled error or rejection and `Object.prototype` stays clean; nothing refused',
    'before the handler reaches the store (no claim, no receipt); and no answer is a 5xx except the',
    'documented ones: `503` when the store is down, and `500` when the handler itself fails',
    '(throws, answers 500, or answers more than `maxResponseBytes`, DESIGN.md §6).',
    '',
    "Routes: `header` keys on `X-Event-Id`; `body` keys on the parsed body's `id`; `stripe`,",
    '`github` and `shopify` use the presets; `down` has a store whose every call fails. Codes drop the',
    '`ERR_IDEMPOTENCY_` prefix; "replay" is the stored answer with `Idempotent-Replayed: true`; a',
    'status in parentheses comes from the framework or the handler, not the guard. A request list',
    '(`→`) is sent in order under one key. A row marked **not yet** states the intended answer, which',
    'the test asserts and the code does not give yet.',
    '',
    '| # | case | route | what is sent | answer (status / code) | handler runs | receipt |',
    '|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

/** `document` with the text between the markers replaced by `section`. @throws when a marker is missing or out of order. */
export function replaceSection(document: string, section: string): string {
  const start = document.indexOf(START_MARKER);
  const end = document.indexOf(END_MARKER);
  if (start === -1 || end === -1 || end < start)
    throw new Error(`docs/guarantees.md needs ${START_MARKER} … ${END_MARKER}`);
  return `${document.slice(0, start + START_MARKER.length)}\n${section}\n${document.slice(end)}`;
}

/** The text between the markers, without the newline after the start marker and before the end marker. */
export function currentSection(document: string): string | undefined {
  const start = document.indexOf(START_MARKER);
  const end = document.indexOf(END_MARKER);
  if (start === -1 || end === -1 || end < start) return undefined;
  return document
    .slice(start + START_MARKER.length, end)
    .replace(/^\n/, '')
    .replace(/\n$/, '');
}
