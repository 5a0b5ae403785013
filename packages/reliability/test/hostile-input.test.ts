/**
 * The hostile-input table (issue 8, "Fault and load proof"): every case of
 * packages/reliability/src/hostile-cases.ts through every adapter entry of the conformance suite
 * (Express 5/4, Fastify 5/4, Koa 3/2) on InMemoryStore and a SQLite file. Checks each answer
 * (status, guard code, replay header), the handler runs, the receipt read back with `find`, that
 * nothing refused before the handler reached the store, that no 5xx goes out but the documented
 * ones, and that the process saw no unhandled error. docs/guarantees.md carries the table, rendered
 * from the same cases (`WI_UPDATE_DOCS=1` rewrites it).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  storeKinds,
  unreachableStore,
  type AdapterEntry,
  type Answer,
  type CaseHandler,
  type Harness,
  type NativeLike,
} from '@webhook-idempotency/adapter-conformance';
// The suite's own per-test world (not re-exported by the package): one app per adapter entry, as the shared suite builds it.
import { createHarness, type OpenedStore } from '@webhook-idempotency/adapter-conformance';
import {
  IdempotencyGuard,
  type ExternalId,
  type IdempotencyOptions,
  type ProviderPreset,
  type Store,
} from '@webhook-idempotency/core';
import * as providers from '@webhook-idempotency/providers';
import { presentExternalId } from '@webhook-idempotency/core/adapter';
import { expressApps } from '@webhook-idempotency/adapter-conformance/apps/express';
import { fastifyApps } from '@webhook-idempotency/adapter-conformance/apps/fastify';
import { fetchApp } from '@webhook-idempotency/adapter-conformance/apps/fetch';
import { honoApp } from '@webhook-idempotency/adapter-conformance/apps/hono';
import { koaApps } from '@webhook-idempotency/adapter-conformance/apps/koa';
import { nestApps } from '@webhook-idempotency/adapter-conformance/apps/nestjs';
import { sendRaw, type RawAnswer } from '../src/hostile-client';
import {
  ANSWER_HEADER,
  BIG_ANSWER_BYTES,
  GITHUB_SECRET,
  NOW_SECONDS,
  SHOPIFY_SECRET,
  STRIPE_SECRET,
  hostileCases,
  type Expected,
  type Family,
  type HostileCase,
  type Route,
} from '../src/hostile-cases';
import {
  END_MARKER,
  START_MARKER,
  currentSection,
  renderHostileSection,
  replaceSection,
} from '../src/hostile-table';

const GUARANTEES = join(__dirname, '..', '..', '..', 'docs', 'guarantees.md');
const entries: readonly AdapterEntry[] = [
  ...expressApps,
  ...fastifyApps,
  ...koaApps,
  fetchApp,
  honoApp,
  ...nestApps,
];
/** `'nestjs on express'` is `nest-express`; the others are their name's first word. */
const familyOf = (entry: AdapterEntry): Family =>
  (entry.name.startsWith('nestjs on ')
    ? `nest-${entry.name.slice('nestjs on '.length)}`
    : entry.name.split(' ')[0]) as Family;
/** Where a case says nothing of a Nest platform, Nest answers as its platform's framework does. */
const FALLBACK: Partial<Record<Family, Family>> = {
  'nest-express': 'express',
  'nest-fastify': 'fastify',
};
/** Adapters whose callbacks cannot read a parsed body (there is none): the `body` route keys through a preset on the raw bytes. */
const WITHOUT_PARSED_BODY: ReadonlySet<Family> = new Set(['fetch', 'hono']);

/** The receipts' provider of each route (what `find` is asked with). */
const PROVIDER_OF: Record<Route, string> = {
  header: 'conformance',
  body: 'conformance-body',
  stripe: 'stripe',
  github: 'github',
  shopify: 'shopify',
  down: 'conformance',
};

/** The parsed body's `id`: Express `req.body`, Fastify `request.body`, Koa `ctx.request.body`. */
function bodyId(native: NativeLike): ExternalId | undefined {
  const parsed =
    (native as { request?: { body?: unknown } }).request?.body ??
    (native as { body?: unknown }).body;
  if (
    typeof parsed !== 'object' ||
    parsed === null ||
    Array.isArray(parsed) ||
    Buffer.isBuffer(parsed)
  )
    return undefined;
  return (parsed as { id?: ExternalId }).id;
}

/**
 * The `body` route's key for an adapter without a parsed body: the `id` of the raw bytes parsed as
 * JSON, as a user's own preset would read it (a body that is not JSON has no id).
 */
const rawBodyIdPreset: ProviderPreset = {
  provider: PROVIDER_OF.body,
  keyDescription: 'id in the body',
  needsRawBody: false,
  retentionDays: 1,
  key(request) {
    try {
      const parsed: unknown = JSON.parse(request.rawBody?.toString('utf8') ?? '');
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
      return presentExternalId((parsed as { id?: unknown }).id);
    } catch {
      return undefined;
    }
  },
};

const ROUTE_OPTIONS: Record<Route, (family: Family) => Partial<IdempotencyOptions<NativeLike>>> = {
  header: () => ({}),
  body: (family) =>
    WITHOUT_PARSED_BODY.has(family)
      ? { preset: rawBodyIdPreset }
      : { provider: PROVIDER_OF.body, key: bodyId, keyDescription: 'id in the body' },
  stripe: () => ({
    preset: providers.stripe({ secret: STRIPE_SECRET, clock: () => NOW_SECONDS * 1000 }),
  }),
  github: () => ({ preset: providers.github({ secret: GITHUB_SECRET }) }),
  shopify: () => ({ preset: providers.shopify({ secret: SHOPIFY_SECRET }) }),
  down: () => ({ store: unreachableStore() }),
};

/** The test handler: answers as the `x-answer` header says. */
const handler: CaseHandler = (call): Answer | Promise<Answer> => {
  switch (call.headers[ANSWER_HEADER]) {
    case 'throw':
      return Promise.reject(new Error('the handler failed on purpose'));
    case '500':
      return { kind: 'json', status: 500, value: { error: 'the handler answered 500' } };
    case '404':
      return { kind: 'json', status: 404, value: { error: 'no such thing' } };
    case 'big':
      return {
        kind: 'buffer',
        headers: { 'content-type': 'application/octet-stream' },
        value: Buffer.alloc(BIG_ANSWER_BYTES, 0x61),
      };
    default:
      return { kind: 'json', value: { ok: true } };
  }
};

/** The store the harness guards use, counting the calls that write a receipt. */
function counting(store: Store<unknown>): { store: Store<unknown>; writes(): number } {
  let writes = 0;
  const counted: Store<unknown> = {
    capabilities: store.capabilities,
    claim: (...args) => {
      writes++;
      return store.claim(...args);
    },
    reclaim: (...args) => {
      writes++;
      return store.reclaim(...args);
    },
    complete: (...args) => {
      writes++;
      return store.complete(...args);
    },
    fail: (...args) => {
      writes++;
      return store.fail(...args);
    },
    find: (...args) => store.find(...args),
    purge: (...args) => store.purge(...args),
  };
  return { store: counted, writes: () => writes };
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

/** Everything that went wrong with one answer, as text (empty when it is right). */
function judge(got: RawAnswer, want: Expected, testCase: HostileCase): string[] {
  const problems: string[] = [];
  const code = guardCode(got);
  if (got.status !== want.status)
    problems.push(`status ${got.status} (code ${code ?? '-'}), want ${want.status}`);
  if (want.code !== undefined && code !== want.code)
    problems.push(`code ${code ?? '-'}, want ${want.code}`);
  const replayed = got.headers['idempotent-replayed'] === 'true';
  if (replayed !== (want.replayed === true))
    problems.push(`replayed ${replayed}, want ${want.replayed === true}`);
  // The documented 5xx only: 503 when the store is down, 500 when the handler itself failed.
  if (
    got.status >= 500 &&
    !(got.status === 503 && code === 'ERR_IDEMPOTENCY_STORE') &&
    !testCase.handlerFails
  ) {
    problems.push(
      `an undocumented ${got.status} (code ${code ?? '-'}): ${got.body.toString('utf8').slice(0, 200)}`,
    );
  }
  return problems;
}

/** The guard's error code, when the body is the guard's JSON error answer. */
function guardCode(answer: RawAnswer): string | undefined {
  if (answer.body.length > 10_000) return undefined;
  try {
    const { code } = JSON.parse(answer.body.toString('utf8')) as { code?: unknown };
    return typeof code === 'string' && code.startsWith('ERR_IDEMPOTENCY_') ? code : undefined;
  } catch {
    return undefined;
  }
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe.each(
  entries.flatMap((entry) =>
    storeKinds.map((kind) => [`${entry.name} on ${kind.name}`, entry, kind] as const),
  ),
)('hostile input: %s', (_name, entry, kind) => {
  const family = familyOf(entry);
  const cleanup: Array<() => Promise<void>> = [];
  const routes = {} as Record<Route, Harness>;
  let opened: OpenedStore;
  let store: ReturnType<typeof counting>;
  let reader: IdempotencyGuard<unknown>;

  beforeAll(async () => {
    opened = await kind.open();
    store = counting(opened.store);
    reader = new IdempotencyGuard(opened.store);
    for (const route of Object.keys(ROUTE_OPTIONS) as Route[]) {
      routes[route] = createHarness(entry, store.store, cleanup);
      await routes[route].start(ROUTE_OPTIONS[route](family), handler);
    }
  });

  afterAll(async () => {
    for (const close of cleanup.splice(0).reverse()) await close();
    await opened?.close();
  });

  it.each(hostileCases.map((c, i) => [`${i + 1}. ${c.name}`, c] as const))(
    '%s',
    async (_label, testCase) => {
      const fallback = FALLBACK[family];
      const want =
        testCase.on?.[family] ?? (fallback && testCase.on?.[fallback]) ?? testCase.expect;
      const harness = routes[testCase.route];
      const runsBefore = harness.calls();
      const writesBefore = store.writes();
      const unhandledBefore = unhandled.length;
      const problems: string[] = [];
      for (const [i, request] of testCase.requests.entries()) {
        const got = await sendRaw(harness.port(), '/hook', request);
        problems.push(
          ...judge(got, want.answers[i]!, testCase).map((p) => `request ${i + 1}: ${p}`),
        );
      }
      await tick();
      if (harness.calls() - runsBefore !== want.runs)
        problems.push(`handler ran ${harness.calls() - runsBefore} time(s), want ${want.runs}`);
      if (want.receipt !== 'none' && testCase.route !== 'down' && store.writes() === writesBefore)
        problems.push('no receipt write counted for a request that ran');
      if (want.receipt === 'none' && store.writes() !== writesBefore)
        problems.push(
          `${store.writes() - writesBefore} receipt write(s) for a request refused before the handler`,
        );
      if (testCase.key !== undefined) {
        const receipt = await reader.find({
          provider: PROVIDER_OF[testCase.route],
          externalId: testCase.key,
        });
        const status = receipt?.status ?? 'none';
        if (status !== want.receipt) problems.push(`receipt ${status}, want ${want.receipt}`);
      }
      if (unhandled.length !== unhandledBefore)
        problems.push(`unhandled: ${unhandled.slice(unhandledBefore).join('\n')}`);
      if (({} as Record<string, unknown>).polluted !== undefined)
        problems.push('Object.prototype was polluted');
      expect(problems).toEqual([]);
    },
  );

  it('still answers a plain delivery on every route afterwards (no crash, no wedged store)', async () => {
    const after = await sendRaw(routes.header.port(), '/hook', {
      headers: { 'content-type': 'application/json', 'x-event-id': 'after-all' },
      body: Buffer.from('{}'),
    });
    expect(after.status).toBe(200);
    expect(
      (await reader.find({ provider: PROVIDER_OF.header, externalId: 'after-all' }))?.status,
    ).toBe('completed');
  });
});

describe('the hostile-input table', () => {
  it('has at least 60 cases, each key used by one case only', () => {
    expect(hostileCases.length).toBeGreaterThanOrEqual(60);
    const keys = hostileCases
      .filter((c) => c.key !== undefined)
      .map((c) => `${PROVIDER_OF[c.route]}/${c.key}`);
    expect(new Set(keys).size).toBe(keys.length);
    for (const c of hostileCases) {
      for (const outcome of [c.expect, ...Object.values(c.on ?? {})])
        expect(outcome.answers).toHaveLength(c.requests.length);
    }
  });

  it('is the one in docs/guarantees.md (WI_UPDATE_DOCS=1 rewrites it)', () => {
    const section = renderHostileSection(hostileCases);
    const document = readFileSync(GUARANTEES, 'utf8');
    if (process.env.WI_UPDATE_DOCS === '1') {
      const next =
        currentSection(document) === undefined
          ? `${document.replace(/\n*$/, '\n')}\n${START_MARKER}\n${section}\n${END_MARKER}\n`
          : replaceSection(document, section);
      writeFileSync(GUARANTEES, next);
    }
    expect(currentSection(readFileSync(GUARANTEES, 'utf8'))).toBe(section);
  });

  it('left no unhandled error or rejection in the process', () => {
    expect(unhandled).toEqual([]);
  });
});
