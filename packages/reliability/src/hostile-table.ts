/** @module Renders the hostile-input table for docs/guarantees.md from the case list, and swaps it in between its markers. */
import type { Expected, Family, HostileCase, Outcome } from './hostile-cases';

/** The markers that enclose the generated section in docs/guarantees.md. */
export const START_MARKER = '<!-- hostile-input:start -->';
/** See {@link START_MARKER}. */
export const END_MARKER = '<!-- hostile-input:end -->';

const FAMILY_NAMES: Record<Family, string> = {
  express: 'Express',
  fastify: 'Fastify',
  koa: 'Koa',
  fetch: 'fetch',
  hono: 'Hono',
  'nest-express': 'Nest on Express',
  'nest-fastify': 'Nest on Fastify',
};

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
    '(`WI_UPDATE_DOCS=1` rewrites it). Every row is sent to Express 5 and 4, Fastify 5 and 4, Koa 3',
    'and 2, fetch, Hono and NestJS on Express and on Fastify (raw body kept), on `InMemoryStore` and on',
    'a SQLite file, and the test checks each answer, how often the',
    'handler ran, and the receipt afterwards (read with `find`). Across all of them: the process',
    'records no unhandled error or rejection and `Object.prototype` stays clean; nothing refused',
    'before the handler reaches the store (no claim, no receipt); and no answer is a 5xx except the',
    'documented ones: `503` when the store is down, and `500` when the handler itself fails',
    '(throws, answers 500, or answers more than `maxResponseBytes`).',
    '',
    "Routes: `header` keys on `X-Event-Id`; `body` keys on the parsed body's `id` (on fetch and Hono,",
    'which parse no body, a preset reads it from the raw bytes); `stripe`,',
    '`github` and `shopify` use the presets; `down` has a store whose every call fails. Codes drop the',
    '`ERR_IDEMPOTENCY_` prefix; "replay" is the stored answer with `Idempotent-Replayed: true`; a',
    'status in parentheses comes from the framework or the handler, not the guard. A request list',
    '(`→`) is sent in order under one key. A row marked **not yet** states the intended answer, which',
    'the test asserts and the code does not give yet. Where a row names no Nest platform, Nest answers',
    "as that platform's framework does.",
    '',
    '| # | case | route | what is sent | answer (status / code) | handler runs | receipt |',
    '|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

/** The markers that enclose the generated inbox section in docs/guarantees.md. */
export const INBOX_START = '<!-- hostile-inbox:start -->';
/** See {@link INBOX_START}. */
export const INBOX_END = '<!-- hostile-inbox:end -->';

/** A pair of markers; the guard table's by default. */
export interface Markers {
  readonly start: string;
  readonly end: string;
}

const GUARD_MARKERS: Markers = { start: START_MARKER, end: END_MARKER };

/** `document` with the text between the markers replaced by `section`. @throws when a marker is missing or out of order. */
export function replaceSection(
  document: string,
  section: string,
  markers: Markers = GUARD_MARKERS,
): string {
  const start = document.indexOf(markers.start);
  const end = document.indexOf(markers.end);
  if (start === -1 || end === -1 || end < start)
    throw new Error(`docs/guarantees.md needs ${markers.start} … ${markers.end}`);
  return `${document.slice(0, start + markers.start.length)}\n${section}\n${document.slice(end)}`;
}

/** The text between the markers, without the newline after the start marker and before the end marker. */
export function currentSection(
  document: string,
  markers: Markers = GUARD_MARKERS,
): string | undefined {
  const start = document.indexOf(markers.start);
  const end = document.indexOf(markers.end);
  if (start === -1 || end === -1 || end < start) return undefined;
  return document
    .slice(start + markers.start.length, end)
    .replace(/^\n/, '')
    .replace(/\n$/, '');
}

/** The markers that enclose the generated dashboard section in docs/guarantees.md. */
export const DASHBOARD_START = '<!-- hostile-dashboard:start -->';
/** See {@link DASHBOARD_START}. */
export const DASHBOARD_END = '<!-- hostile-dashboard:end -->';

const DASHBOARD_FAMILY_NAMES = {
  express: 'Express',
  fastify: 'Fastify',
  koa: 'Koa',
  hono: 'Hono',
  fetch: 'fetch',
} as const;

/** The whole generated dashboard section: heading, how to read it, and one row per case. */
export function renderDashboardSection(
  cases: readonly import('./hostile-dashboard-cases').DashboardCase[],
): string {
  const rows = cases.map((c, i) => {
    const others = Object.entries(c.on ?? {})
      .map(
        ([family, o]) =>
          `; ${DASHBOARD_FAMILY_NAMES[family as keyof typeof DASHBOARD_FAMILY_NAMES]}: ${o!.status} (${o!.by})`,
      )
      .join('');
    const answer = `${c.status}${c.by ? ` (${c.by})` : ''}${others}`;
    return `| ${i + 1} | ${cell(c.name)} | ${c.admin ? 'yes' : 'no'} | ${cell(c.sent)} | ${cell(answer)} |`;
  });
  return [
    '## Hostile input: the dashboard',
    '',
    'Generated from `packages/reliability/src/hostile-dashboard-cases.ts` by `packages/reliability/test/hostile-dashboard.test.ts`',
    '(`WI_UPDATE_DOCS=1` rewrites it). Every row is sent over real HTTP to the dashboard mounted on',
    'Express, Fastify, Koa, Hono and as a fetch handler, over an `InMemoryStore` and an `InMemoryInbox`',
    'holding a stuck claim, a stored `<script>` body and a delivery with a `Stripe-Signature`. The test',
    'checks each status, that no answer echoes markup or a stored signature, that nothing stored',
    'changed (every row is refused or only reads), that no answer is a 5xx and that the process saw no',
    'unhandled error. "authorized" says whether the request carried what `authorize` accepts.',
    '',
    '| # | case | authorized | what is sent | answer |',
    '|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}
