/**
 * The Hono Worker and the plain fetch Worker of this example, built from the packed tarballs with
 * wrangler and run in workerd (miniflare), each on the D1 database `wrangler d1 migrations apply`
 * created: the HTTP cases over HTTP. Collected on Node >= 22, which wrangler and miniflare need
 * (jest.config.ts); `pnpm test` runs it once, on a Node line (test-support/run-node-lines.ts).
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as signers from '@webhook-idempotency/providers/testing';
import { Schema } from '@webhook-idempotency/sql';
import { allAnswered, sendOversized } from '@webhook-idempotency/test-support/oversized';
import { buildProject, type BuiltProject, type RunningWorker } from './helpers/build';
import { type BuildService, startBuildService } from './helpers/build-service';

const SECRET = 'It is a secret to everybody';
const github = signers.github({ secret: SECRET });
let project: BuiltProject | undefined;
let service: BuildService | undefined;

beforeAll(async () => {
  service = await startBuildService();
  project = await buildProject();
}, 10 * 60_000);

afterAll(async () => {
  await service?.close();
  project?.remove();
});

it('the receipts migration is Schema.d1Migration(), and wrangler applies both migrations', () => {
  const file = readFileSync(
    join(__dirname, '..', 'migrations', '0001_webhook_receipts.sql'),
    'utf8',
  );
  expect(file).toBe(Schema.d1Migration());
  expect(project?.migration).toBe(file); // docs/stores.md's command, in the project
  expect(project?.migrated).toMatch(/0001_webhook_receipts\.sql\s*│ ✅/);
  expect(project?.migrated).toMatch(/0002_pushes\.sql\s*│ ✅/);
});

it("the Workers' sources type-check against Cloudflare's runtime types and the bindings `wrangler types` generates", () => {
  expect(project?.typeErrors).toBe('');
});

describe.each(['hono', 'fetch'] as const)(
  'the %s Worker on Cloudflare Workers (workerd), on D1',
  (name) => {
    let worker: RunningWorker | undefined;
    beforeAll(async () => {
      if (!project || !service) throw new Error('the project was not built');
      worker = await project.start(name, {
        GITHUB_WEBHOOK_SECRET: SECRET,
        BUILD_HOOK_URL: service.url,
      });
    }, 60_000);
    afterAll(() => worker?.close());

    const builds = () => {
      if (!service) throw new Error('no build service');
      return service;
    };
    /** A push of a commit of its own, named after the case, as GitHub signs it. */
    const push = (commit: string, delivery: string = randomUUID(), extra: object = {}) =>
      github.event(
        { after: `${name}-${commit}`, repository: { full_name: 'octo/hello' }, ...extra },
        { event: 'push', delivery },
      );
    const deliver = (sent: signers.Delivery): Promise<Response> => {
      if (!worker) throw new Error('the Worker is not running');
      return fetch(signers.toRequest(sent, worker.url));
    };
    const d1 = async (sql: string, ...params: unknown[]) => {
      if (!worker) throw new Error('the Worker is not running');
      const db = await worker.mf.getD1Database('DB');
      const { results } = await db
        .prepare(sql)
        .bind(...params)
        .all();
      return results as Record<string, unknown>[];
    };
    const receipt = async (delivery: string) =>
      (
        await d1('SELECT status, attempts FROM webhook_receipts WHERE external_id = ?', delivery)
      )[0];

    it('first delivery runs the push route: its answer, and the push recorded in D1', async () => {
      const delivery = randomUUID();
      const response = await deliver(push('first', delivery));
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ build: `build-${name}-first-1` });
      expect(response.headers.get('idempotent-replayed')).toBeNull();
      expect(await d1('SELECT build FROM pushes WHERE delivery = ?', delivery)).toEqual([
        { build: `build-${name}-first-1` },
      ]);
      expect(await receipt(delivery)).toEqual({ status: 'completed', attempts: 1 });
    });

    it('a duplicate is answered from the receipt: the stored body and headers, and no second run', async () => {
      const delivery = randomUUID();
      const sent = push('duplicate', delivery);
      const first = await deliver(sent);
      const firstBody = await first.text();
      const again = await deliver(sent.retry());
      expect(again.status).toBe(200);
      expect(await again.text()).toBe(firstBody);
      expect(again.headers.get('content-type')).toBe(first.headers.get('content-type'));
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(builds().requests(`${name}-duplicate`)).toBe(1);
    });

    it('a duplicate while the first run holds a fresh claim is answered 409 with Retry-After', async () => {
      const delivery = randomUUID();
      const commit = `${name}-held`;
      builds().behave(commit, 'hold');
      const sent = push('held', delivery);
      const first = deliver(sent);
      await builds().held(commit);
      const during = await deliver(sent.retry());
      expect(during.status).toBe(409);
      expect(Number(during.headers.get('retry-after'))).toBeGreaterThan(0);
      builds().release(commit);
      expect((await first).status).toBe(200);
      expect(builds().requests(commit)).toBe(1);
    });

    it('a route that failed leaves the receipt failed, and the redelivery runs it again', async () => {
      const delivery = randomUUID();
      const commit = `${name}-flaky`;
      builds().behave(commit, 'fail-first');
      const sent = push('flaky', delivery);
      const failed = await deliver(sent);
      expect(failed.status).toBe(500);
      expect(await receipt(delivery)).toEqual({ status: 'failed', attempts: 1 });
      const rerun = await deliver(sent.retry());
      expect(rerun.status).toBe(200);
      expect(await rerun.json()).toEqual({ build: `build-${commit}-2` });
      expect(await receipt(delivery)).toEqual({ status: 'completed', attempts: 2 });
      expect(builds().requests(commit)).toBe(2);
    });

    it('an event no route takes is acknowledged with 200 before any claim: no receipt, nothing built', async () => {
      const delivery = randomUUID();
      const star = github.event(
        { action: 'created', starred_at: null },
        { event: 'star', delivery },
      );
      const response = await deliver(star);
      expect([response.status, await response.json()]).toEqual([200, { received: true }]);
      expect(await receipt(delivery)).toBeUndefined();
    });

    it('a delivery without its X-GitHub-Delivery key is refused with 400, nothing run', async () => {
      // The kit's push with its X-GitHub-Delivery header taken off.
      const sent = push('no-key');
      const { 'x-github-delivery': _key, ...headers } = sent.headers;
      if (!worker) throw new Error('the Worker is not running');
      const response = await fetch(new URL(sent.path, worker.url), {
        method: 'POST',
        headers,
        body: new Uint8Array(sent.body),
      });
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ code: 'ERR_IDEMPOTENCY_KEY_MISSING' });
      expect(builds().requests(`${name}-no-key`)).toBe(0);
    });

    it('a body over maxRequestBytes is refused with 413, nothing stored', async () => {
      const delivery = randomUUID();
      const response = await deliver(push('big', delivery, { padding: 'x'.repeat(300 * 1024) }));
      expect(response.status).toBe(413);
      expect(await receipt(delivery)).toBeUndefined();
    });

    // workerd resets a connection whose request body the Worker left unread when the sender is
    // still writing: the adapters read off the rest (within 16 MiB, a 1 s pause and 10 s) before the
    // 413 ends.
    it('a 2 MiB body over maxRequestBytes: the sender reads the 413 every time (10 rounds of 4 kinds of sender)', async () => {
      if (!worker) throw new Error('the Worker is not running');
      const delivery = randomUUID();
      const outcomes = await sendOversized({
        url: worker.url,
        path: '/webhooks/github',
        bytes: 2 * 1024 * 1024,
        rounds: 10,
        headers: { 'x-github-event': 'push', 'x-github-delivery': delivery },
      });
      expect(outcomes).toEqual(allAnswered(outcomes, 413));
      expect(await receipt(delivery)).toBeUndefined();
    });

    it('a forged signature is refused with 401, nothing stored or run', async () => {
      const delivery = randomUUID();
      const response = await deliver(push('forged', delivery).forged());
      expect(response.status).toBe(401);
      expect(await receipt(delivery)).toBeUndefined();
      expect(builds().requests(`${name}-forged`)).toBe(0);
    });
  },
);
