/**
 * The dashboard's hostile-input table: every case of
 * packages/reliability/src/hostile-dashboard-cases.ts through every mount (Express, Fastify, Koa,
 * Hono, fetch) over real HTTP, on the in-memory receipts and inbox. Checks each answer's status,
 * that no answer echoes markup or a stored signature, that nothing stored changed, that no 5xx goes
 * out, and that the process saw no unhandled error. docs/guarantees.md carries the table
 * (`WI_UPDATE_DOCS=1` rewrites it).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isAdmin, type Mounted, mounts } from '@webhook-idempotency/dashboard/test/helpers/mounts';
import { seedMemory } from '@webhook-idempotency/dashboard/test/helpers/seed';
import { sendRaw } from '../src/hostile-client';
import {
  DASHBOARD_BASE,
  type DashboardCase,
  type DashboardFamily,
  hostileDashboardCases,
} from '../src/hostile-dashboard-cases';
import {
  currentSection,
  DASHBOARD_END,
  DASHBOARD_START,
  renderDashboardSection,
  replaceSection,
} from '../src/hostile-table';

const GUARANTEES = join(__dirname, '..', '..', '..', 'docs', 'guarantees.md');

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

describe.each(mounts.map((m) => [m.name, m] as const))(
  'hostile dashboard input: %s',
  (_name, entry) => {
    let mounted: Mounted;
    let scene: Awaited<ReturnType<typeof seedMemory>>;
    const errors: unknown[] = [];
    /** Everything stored, as text: what no refused request may change. */
    const snapshot = async () =>
      JSON.stringify([
        // Everything but the age, which grows while the table runs.
        scene.store.list().map(({ claimedAt, finishedAt, ...r }) => ({
          ...r,
          claimAgeMs: undefined,
          claimedAt: +claimedAt,
          finishedAt: finishedAt && +finishedAt,
        })),
        await scene.inbox.list({ limit: 100 }),
      ]);

    beforeAll(async () => {
      scene = await seedMemory();
      mounted = await entry.mount({
        basePath: DASHBOARD_BASE,
        authorize: isAdmin,
        receipts: scene.store,
        inbox: scene.inbox,
        onError: (e: unknown) => errors.push(e),
      } as never);
    });
    afterAll(() => mounted?.close());

    it.each(hostileDashboardCases.map((c, i) => [`${i + 1}. ${c.name}`, c] as const))(
      '%s',
      async (_label, testCase: DashboardCase) => {
        const want = testCase.on?.[entry.name as DashboardFamily]?.status ?? testCase.status;
        const before = await snapshot();
        const unhandledBefore = unhandled.length;
        const port = Number(new URL(mounted.origin).port);
        const headers = {
          ...testCase.request.headers,
          ...(testCase.admin ? { 'x-admin': 'yes' } : {}),
        };
        const got = await sendRaw(port, testCase.path, { ...testCase.request, headers });
        const problems: string[] = [];
        if (got.status !== want)
          problems.push(
            `status ${got.status}, want ${want}: ${got.body.toString('utf8').slice(0, 200)}`,
          );
        if (got.status >= 500) problems.push(`a ${got.status}`);
        if (testCase.mustNotContain && got.body.toString('utf8').includes(testCase.mustNotContain))
          problems.push(`the answer holds ${testCase.mustNotContain}`);
        if ((await snapshot()) !== before) problems.push('something stored changed');
        if (unhandled.length !== unhandledBefore)
          problems.push(`unhandled: ${unhandled.slice(unhandledBefore).join('\n')}`);
        if (({} as Record<string, unknown>).polluted !== undefined)
          problems.push('Object.prototype was polluted');
        expect(problems).toEqual([]);
      },
    );

    it('still shows the overview afterwards, and reported no error', async () => {
      const port = Number(new URL(mounted.origin).port);
      const after = await sendRaw(port, `${DASHBOARD_BASE}/`, {
        method: 'GET',
        headers: { 'x-admin': 'yes' },
        body: Buffer.alloc(0),
      });
      expect(after.status).toBe(200);
      expect(errors).toEqual([]);
    });
  },
);

describe('the hostile dashboard table', () => {
  it('has at least 35 cases, each named once', () => {
    expect(hostileDashboardCases.length).toBeGreaterThanOrEqual(35);
    expect(new Set(hostileDashboardCases.map((c) => c.name)).size).toBe(
      hostileDashboardCases.length,
    );
  });

  it('is the one in docs/guarantees.md (WI_UPDATE_DOCS=1 rewrites it)', () => {
    const section = renderDashboardSection(hostileDashboardCases);
    const markers = { start: DASHBOARD_START, end: DASHBOARD_END };
    const document = readFileSync(GUARANTEES, 'utf8');
    if (process.env.WI_UPDATE_DOCS === '1') {
      const next =
        currentSection(document, markers) === undefined
          ? `${document.replace(/\n*$/, '\n')}\n${DASHBOARD_START}\n${section}\n${DASHBOARD_END}\n`
          : replaceSection(document, section, markers);
      writeFileSync(GUARANTEES, next);
    }
    expect(currentSection(readFileSync(GUARANTEES, 'utf8'), markers)).toBe(section);
  });

  it('left no unhandled error or rejection in the process', () => {
    expect(unhandled).toEqual([]);
  });
});
