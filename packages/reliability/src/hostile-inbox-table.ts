/** @module Renders the inbox hostile-input table for docs/guarantees.md from its case list. */
import type { InboxCase, InboxExpected, InboxFamily, InboxOutcome } from './hostile-inbox-cases';

const FAMILY_NAMES: Record<InboxFamily, string> = {
  express: 'Express',
  fastify: 'Fastify',
  koa: 'Koa',
  fetch: 'fetch',
  hono: 'Hono',
  nestjs: 'Nest',
};

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function answer(expected: InboxExpected): string {
  if (expected.code)
    return `${expected.status} \`${expected.code.replace(/^ERR_IDEMPOTENCY_/, '')}\``;
  if (expected.replayed) return `${expected.status} duplicate`;
  return expected.by ? `${expected.status} (${expected.by})` : String(expected.status);
}

const answers = (outcome: InboxOutcome) => outcome.answers.map(answer).join(' → ');

function stored(outcome: InboxOutcome): string {
  if (outcome.storedFrom === undefined) return 'nothing';
  const which = outcome.answers.length > 1 ? ` (request ${outcome.storedFrom + 1})` : '';
  const order = outcome.orderingKey ? `, ordering key \`${outcome.orderingKey}\`` : '';
  return `${outcome.rows} row${outcome.rows === 1 ? '' : 's'}${which}${order}`;
}

function overrides(testCase: InboxCase): string {
  return Object.entries(testCase.on ?? {})
    .map(
      ([family, outcome]) =>
        `; ${FAMILY_NAMES[family as InboxFamily]}: ${answers(outcome)}, ${stored(outcome)}`,
    )
    .join('');
}

/** The whole generated inbox section: heading, how to read it, and one row per case. */
export function renderInboxSection(cases: readonly InboxCase[]): string {
  const rows = cases.map(
    (c, i) =>
      `| ${i + 1} | ${cell(c.name)} | ${c.route} | ${cell(c.sent)} | ${cell(answers(c.expect) + overrides(c))} | ${stored(c.expect)} |`,
  );
  return [
    '## Hostile input: the inbox endpoint',
    '',
    'Generated from `packages/reliability/src/hostile-inbox.ts` by `packages/reliability/test/hostile-inbox.test.ts`',
    "(`WI_UPDATE_DOCS=1` rewrites it). Every row is sent to each adapter's `inbox(options)` set up as",
    '[inbox mode](inbox.md) says: Express, Fastify, Koa, fetch, Hono and Nest (the Express endpoint as',
    'module middleware), on a SQLite file. The test checks each answer, the rows the case added, and',
    'the delivery stored under its id: the exact bytes of the request that was accepted, its ordering',
    'key, never `Authorization` or cookies; a refused request stores nothing. Across all of them no',
    'unhandled error, `Object.prototype` stays clean, and the only 5xx is `503` with `Retry-After: 1`',
    'and "The inbox store is unavailable" when the store is down.',
    '',
    'Routes: `stripe` and `github` use the presets; `signed` has its own `verify` (HMAC of the body',
    "in `X-Signature`), its id in `X-Delivery-Id` and the body's `customer` as ordering key;",
    '`unverified` is marked `unverified: true` and stores whatever carries an id; `down` is `signed`',
    'on an inbox store whose every call fails. "duplicate" is the 2xx with `Idempotent-Replayed: true`.',
    '',
    '| # | case | route | what is sent | answer (status / code) | stored |',
    '|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}
