/**
 * The inbox hostile-input table: every case of packages/reliability/src/hostile-inbox.ts through
 * every adapter's `inbox(options)` (Express, Fastify, Koa, fetch, Hono, Nest on Express), set up
 * as docs/inbox.md says, on a SQLite file. Checks each answer (status, code, duplicate header),
 * the rows the case added, the stored delivery (the exact bytes of the request that was accepted,
 * its ordering key, no credentials) and, for a refused request, that nothing was stored. One server
 * per adapter and route. docs/guarantees.md carries the table (`WI_UPDATE_DOCS=1` rewrites it).
 */
import { timingSafeEqual } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunningApp } from '@webhook-idempotency/adapter-conformance';
import type { InboxOptions, InboxStore } from '@webhook-idempotency/core/inbox';
import * as providers from '@webhook-idempotency/providers';
import { InboxSchema, SqlInbox } from '@webhook-idempotency/sql';
import Database from 'better-sqlite3';
import { GITHUB_SECRET, NOW_SECONDS, STRIPE_SECRET } from '../src/hostile-cases';
import { type RawAnswer, sendRaw } from '../src/hostile-client';
import { hostileInboxCases } from '../src/hostile-inbox';
import {
  hmac,
  type InboxCase,
  type InboxExpected,
  type InboxRoute,
  SIGNED_SECRET,
} from '../src/hostile-inbox-cases';
import { renderInboxSection } from '../src/hostile-inbox-table';
import { INBOX_END, INBOX_START, currentSection, replaceSection } from '../src/hostile-table';
import { headerOf, inboxApps } from './helpers/inbox-apps';

const GUARANTEES = join(__dirname, '..', '..', '..', 'docs', 'guarantees.md');

/** The deliveries' provider of each route (what `find` is asked with). */
const PROVIDER_OF: Record<InboxRoute, string> = {
  stripe: 'stripe',
  github: 'github',
  signed: 'signed',
  unverified: 'unverified',
  down: 'down',
};

const verifySigned = (native: unknown, raw: Buffer | undefined): boolean => {
  const given = Buffer.from(headerOf(native, 'x-signature') ?? '');
  const wanted = Buffer.from(hmac(SIGNED_SECRET, raw ?? Buffer.alloc(0)));
  return raw !== undefined && given.length === wanted.length && timingSafeEqual(given, wanted);
};
const deliveryId = (native: unknown) => headerOf(native, 'x-delivery-id');
/** The body's `customer`, whatever it is (the inbox judges it), or none when the body is not JSON. */
const customer = (_native: unknown, raw: Buffer): string | undefined => {
  try {
    return (JSON.parse(raw.toString('utf8')) as { customer?: string }).customer;
  } catch {
    return undefined;
  }
};
/** An inbox store whose every call fails as a lost database would. */
const downStore = {
  enqueue: () => Promise.reject(new Error('connect ECONNREFUSED 10.0.0.7:5432')),
} as unknown as InboxStore;

function routeOptions(route: InboxRoute, inbox: InboxStore): InboxOptions<never> {
  const signed = { key: deliveryId, verify: verifySigned, orderingKey: customer };
  const options: Record<InboxRoute, InboxOptions<unknown>> = {
    stripe: {
      inbox,
      preset: providers.stripe({ secret: STRIPE_SECRET, clock: () => NOW_SECONDS * 1000 }),
    },
    github: { inbox, preset: providers.github({ secret: GITHUB_SECRET }) },
    signed: { inbox, provider: PROVIDER_OF.signed, ...signed },
    unverified: { inbox, provider: PROVIDER_OF.unverified, key: deliveryId, unverified: true },
    down: { inbox: downStore, provider: PROVIDER_OF.down, ...signed },
  };
  return options[route] as InboxOptions<never>;
}

/** Every unhandled error or rejection the process reports while this file runs. */
const unhandled: string[] = [];
const onUnhandled = (error: unknown) =>
  unhandled.push(error instanceof Error ? (error.stack ?? error.message) : String(error));
beforeAll(() => {
  process.on('unhandledRejection', onUnhandled);
  process.on('uncaughtException', onUnhandled);
});
afterAll(() => {
  process.off('unhandledRejection', onUnhandled);
  process.off('uncaughtException', onUnhandled);
});

function codeOf(answer: RawAnswer): string | undefined {
  try {
    const { code } = JSON.parse(answer.body.toString('utf8')) as { code?: unknown };
    return typeof code === 'string' ? code : undefined;
  } catch {
    return undefined;
  }
}

function judge(got: RawAnswer, want: InboxExpected): string[] {
  const problems: string[] = [];
  const code = codeOf(got);
  if (got.status !== want.status)
    problems.push(`status ${got.status} (code ${code ?? '-'}), want ${want.status}`);
  if (want.code !== undefined && code !== want.code)
    problems.push(`code ${code ?? '-'}, want ${want.code}`);
  const replayed = got.headers['idempotent-replayed'] === 'true';
  if (replayed !== (want.replayed === true))
    problems.push(`replayed ${replayed}, want ${want.replayed === true}`);
  if (got.status >= 500) {
    const message = got.body.toString('utf8');
    if (got.status !== 503 || !message.includes('The inbox store is unavailable; retry later'))
      problems.push(`an undocumented ${got.status}: ${message.slice(0, 200)}`);
    if (got.headers['retry-after'] !== '1') problems.push('a 503 without Retry-After: 1');
  }
  return problems;
}

describe.each(inboxApps.map((app) => [app.name, app] as const))(
  'hostile inbox input: %s',
  (_name, app) => {
    const routes = {} as Record<InboxRoute, RunningApp>;
    let db: Database.Database;
    let inbox: SqlInbox;
    const rows = () =>
      (db.prepare('SELECT COUNT(*) AS n FROM webhook_inbox').get() as { n: number }).n;

    beforeAll(async () => {
      const dir = mkdtempSync(join(process.env.WI_TMP ?? tmpdir(), 'hostile-inbox-'));
      db = new Database(join(dir, 'inbox.db'));
      db.pragma('journal_mode = WAL');
      await InboxSchema.createTable(db);
      inbox = new SqlInbox(db);
      for (const route of Object.keys(PROVIDER_OF) as InboxRoute[])
        routes[route] = await app.start(routeOptions(route, inbox));
    });
    afterAll(async () => {
      for (const running of Object.values(routes)) await running?.close();
      db?.close();
    });

    it.each(hostileInboxCases.map((c, i) => [`${i + 1}. ${c.name}`, c] as const))(
      '%s',
      async (_label, testCase: InboxCase) => {
        const want = testCase.on?.[app.family] ?? testCase.expect;
        const port = (routes[testCase.route].server.address() as { port: number }).port;
        const before = rows();
        const unhandledBefore = unhandled.length;
        const problems: string[] = [];
        for (const [i, request] of testCase.requests.entries()) {
          const got = await sendRaw(port, '/hook', request);
          problems.push(...judge(got, want.answers[i]!).map((p) => `request ${i + 1}: ${p}`));
        }
        if (rows() - before !== want.rows)
          problems.push(`${rows() - before} row(s) added, want ${want.rows}`);
        if (testCase.key !== undefined) {
          const found = await inbox.find(PROVIDER_OF[testCase.route], testCase.key);
          if (want.storedFrom === undefined) {
            if (found !== null) problems.push('a delivery was stored for a refused request');
          } else if (found === null) {
            problems.push('no delivery stored');
          } else {
            if (!found.body.equals(testCase.requests[want.storedFrom]!.body))
              problems.push('the stored bytes are not the accepted request’s');
            if (found.orderingKey !== (want.orderingKey ?? null))
              problems.push(`ordering key ${found.orderingKey}, want ${want.orderingKey ?? null}`);
            for (const secret of ['authorization', 'cookie'])
              if (found.headers[secret] !== undefined) problems.push(`stored the ${secret} header`);
          }
        }
        if (unhandled.length !== unhandledBefore)
          problems.push(`unhandled: ${unhandled.slice(unhandledBefore).join('\n')}`);
        if (({} as Record<string, unknown>).polluted !== undefined)
          problems.push('Object.prototype was polluted');
        expect(problems).toEqual([]);
      },
    );
  },
);

describe('the hostile inbox table', () => {
  it('has at least 60 cases, each key used by one case only, one answer per request', () => {
    expect(hostileInboxCases.length).toBeGreaterThanOrEqual(60);
    const keys = hostileInboxCases
      .filter((c) => c.key !== undefined)
      .map((c) => `${PROVIDER_OF[c.route]}/${c.key}`);
    expect(new Set(keys).size).toBe(keys.length);
    for (const c of hostileInboxCases)
      for (const outcome of [c.expect, ...Object.values(c.on ?? {})])
        expect(outcome.answers).toHaveLength(c.requests.length);
  });

  it('is the one in docs/guarantees.md (WI_UPDATE_DOCS=1 rewrites it)', () => {
    const section = renderInboxSection(hostileInboxCases);
    const markers = { start: INBOX_START, end: INBOX_END };
    const document = readFileSync(GUARANTEES, 'utf8');
    if (process.env.WI_UPDATE_DOCS === '1') {
      const next =
        currentSection(document, markers) === undefined
          ? `${document.replace(/\n*$/, '\n')}\n${INBOX_START}\n${section}\n${INBOX_END}\n`
          : replaceSection(document, section, markers);
      writeFileSync(GUARANTEES, next);
    }
    expect(currentSection(readFileSync(GUARANTEES, 'utf8'), markers)).toBe(section);
  });

  it('left no unhandled error or rejection in the process', () => {
    expect(unhandled).toEqual([]);
  });
});
