/**
 * The dashboard through every mount (Express, Fastify, Koa, Hono, fetch) over real HTTP, on the
 * in-memory receipts and inbox: the same cases on each. Authorization before anything, the CSRF
 * check of every action, the security headers, escaping, and a repair that is really made.
 */
import { ConfigError, InMemoryStore } from '@webhook-idempotency/core';
import { InMemoryInbox } from '@webhook-idempotency/core/inbox';
import { Client, tokenOf } from './helpers/client';
import { behindParsers, isAdmin, type Mounted, mounts, olderMajors } from './helpers/mounts';
import { seedMemory } from './helpers/seed';

const BASE = '/admin/hooks';
const ADMIN = { 'x-admin': 'yes' };

describe.each([...mounts, ...olderMajors].map((m) => [m.label, m] as const))(
  'the dashboard mounted on %s',
  (_name, entry) => {
    let mounted: Mounted;
    let scene: Awaited<ReturnType<typeof seedMemory>>;

    beforeEach(async () => {
      scene = await seedMemory();
      mounted = await entry.mount({
        basePath: BASE,
        authorize: isAdmin,
        receipts: scene.store,
        inbox: scene.inbox,
        challenge: 'Basic realm="hooks"',
      } as never);
    });
    afterEach(() => mounted.close());

    it('refuses to mount without authorize: a ConfigError naming it', async () => {
      await expect(
        entry.mount({ basePath: BASE, receipts: new InMemoryStore() } as never),
      ).rejects.toMatchObject({
        name: 'ConfigError',
        option: 'authorize',
      });
      await expect(
        entry.mount({ basePath: BASE, authorize: () => true, receipts: {} } as never),
      ).rejects.toBeInstanceOf(ConfigError);
    });

    it('answers 401 to a request authorize refuses, with the challenge, and shows nothing', async () => {
      const stranger = new Client(mounted.origin);
      const got = await stranger.get(`${BASE}/receipt?provider=stripe&id=evt_done`);
      expect(got.status).toBe(401);
      expect(got.headers.get('www-authenticate')).toBe('Basic realm="hooks"');
      expect(got.text).not.toContain('evt_done');
      expect(got.headers.get('set-cookie')).toBeNull();
    });

    it('an unauthorized POST with a valid token performs nothing', async () => {
      const admin = new Client(mounted.origin, ADMIN);
      const token = tokenOf(
        (await admin.get(`${BASE}/receipt/release?provider=stripe&id=evt_stuck`)).text,
      );
      const cookie = (await admin.get(`${BASE}/`)).headers.get('set-cookie');
      const got = await new Client(mounted.origin).post(
        `${BASE}/receipt/release?provider=stripe&id=evt_stuck`,
        { csrf: token },
        cookie ? { cookie } : {},
      );
      expect(got.status).toBe(401);
      expect(
        (
          await scene.store.find(
            { provider: 'stripe', externalId: 'evt_stuck' },
            { now: Date.now() },
          )
        )?.status,
      ).toBe('processing');
    });

    it('serves its pages with a nonce policy, no framing, no caching, and its own assets', async () => {
      const admin = new Client(mounted.origin, ADMIN);
      const got = await admin.get(`${BASE}/`);
      expect(got.status).toBe(200);
      const csp = got.headers.get('content-security-policy') ?? '';
      const nonce = /script-src 'nonce-([^']+)'/.exec(csp)?.[1];
      expect(nonce).toBeTruthy();
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(got.headers.get('x-frame-options')).toBe('DENY');
      expect(got.headers.get('cache-control')).toBe('no-store');
      expect(got.text).toContain(`nonce="${nonce}"`);
      expect(got.text).not.toMatch(/https?:\/\//);
      expect(got.text).not.toMatch(/ style="/);
      const css = await admin.get(`${BASE}/assets/dashboard.css`);
      expect(css.status).toBe(200);
      expect(css.headers.get('content-type')).toContain('text/css');
      expect(
        (await admin.get(`${BASE}/assets/dashboard.js`)).headers.get('content-type'),
      ).toContain('javascript');
    });

    it('leaves the application’s own routes alone', async () => {
      const got = await new Client(mounted.origin).get('/other');
      expect(got.status).toBe(entry.servesOtherRoutes ? 200 : 404);
      if (entry.servesOtherRoutes) expect(got.text).toBe('other');
    });

    it('escapes what is stored and masks signature headers', async () => {
      const admin = new Client(mounted.origin, ADMIN);
      const failed = await admin.get(
        `${BASE}/receipt?provider=github&id=${encodeURIComponent('gh-<b>1</b>')}`,
      );
      expect(failed.status).toBe(200);
      expect(failed.text).toContain('gh-&lt;b&gt;1&lt;/b&gt;');
      expect(failed.text).toContain('Error: &lt;img src=x onerror=alert(1)&gt;');
      expect(failed.text).not.toContain('<img');
      const answer = await admin.get(`${BASE}/receipt/answer?provider=stripe&id=evt_done`);
      expect(answer.text).toContain('&lt;script&gt;window.__pwned = 1&lt;/script&gt;');
      expect(answer.text).not.toContain('<script>window');
      const detail = await admin.get(`${BASE}/receipt?provider=stripe&id=evt_done`);
      expect(detail.text).not.toContain('secret-looking');
      expect(detail.text).not.toContain('__pwned');
      const delivery = await admin.get(`${BASE}/delivery?provider=stripe&id=evt_dead`);
      expect(delivery.text).toContain('stripe-signature');
      expect(delivery.text).not.toContain('abcdef0123456789');
      expect(delivery.text).toMatch(/masked \(\d+ characters\)/);
    });

    it('performs an action only with its CSRF token from the same site, then redirects', async () => {
      const admin = new Client(mounted.origin, ADMIN);
      const path = `${BASE}/receipt/release?provider=stripe&id=evt_stuck`;
      const key = { provider: 'stripe', externalId: 'evt_stuck' };
      const statusNow = async () => (await scene.store.find(key, { now: Date.now() }))?.status;
      const token = tokenOf((await admin.get(path)).text);
      expect((await admin.post(path, {})).status).toBe(403);
      expect((await admin.post(path, { csrf: 'forged' })).status).toBe(403);
      expect(
        (await admin.post(path, { csrf: token }, { origin: 'https://evil.example' })).status,
      ).toBe(403);
      expect(
        (await admin.post(path, { csrf: token }, { 'sec-fetch-site': 'cross-site' })).status,
      ).toBe(403);
      expect(
        (
          await admin.post(
            path,
            { csrf: token },
            { cookie: 'wi_dashboard_csrf=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' },
          )
        ).status,
      ).toBe(403);
      expect(await statusNow()).toBe('processing');
      const done = await admin.post(path, { csrf: token });
      expect(done.status).toBe(303);
      expect(done.headers.get('location')).toBe(
        `${BASE}/receipt?provider=stripe&id=evt_stuck&done=released`,
      );
      expect(await statusNow()).toBe('failed');
      const again = await admin.post(path, { csrf: token });
      expect(again.status).toBe(409);
      expect(again.text).toContain('not processing');
    });

    it('retries a dead delivery and refuses to rerun a done one without the explicit confirmation', async () => {
      const admin = new Client(mounted.origin, ADMIN);
      const token = tokenOf(
        (await admin.get(`${BASE}/delivery/retry?provider=stripe&id=evt_dead`)).text,
      );
      expect(
        (await admin.post(`${BASE}/delivery/retry?provider=stripe&id=evt_dead`, { csrf: token }))
          .status,
      ).toBe(303);
      expect((await scene.inbox.find('stripe', 'evt_dead'))?.status).toBe('pending');
      const rerun = `${BASE}/delivery/redeliver?provider=stripe&id=evt_inbox_done`;
      expect((await admin.post(rerun, { csrf: token })).status).toBe(409);
      expect((await scene.inbox.find('stripe', 'evt_inbox_done'))?.status).toBe('done');
      expect((await admin.post(rerun, { csrf: token, force: '1' })).status).toBe(303);
      expect((await scene.inbox.find('stripe', 'evt_inbox_done'))?.status).toBe('pending');
    });

    it('answers 405 to other methods, 404 off its routes, 400 to a forged page link, 413 to a huge form', async () => {
      const admin = new Client(mounted.origin, ADMIN);
      expect((await admin.send(`${BASE}/receipts`, { method: 'PUT' })).status).toBe(405);
      expect(
        (
          await admin.send(`${BASE}/receipts`, {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: 'a=1',
          })
        ).status,
      ).toBe(405);
      expect((await admin.get(`${BASE}/nope`)).status).toBe(404);
      expect((await admin.get(`${BASE}/receipts?after=bm90IGEgY3Vyc29y`)).status).toBe(400);
      expect((await admin.get(`${BASE}/receipts?status=stuck%00`)).status).toBe(400);
      const huge = await admin.post(`${BASE}/purge?retentionDays=0`, { csrf: 'x'.repeat(70_000) });
      expect(huge.status).toBe(413);
      expect(scene.store.size).toBe(6);
    });

    it('read-only: offers no action and performs none', async () => {
      await mounted.close();
      mounted = await entry.mount({
        basePath: BASE,
        authorize: () => true,
        receipts: scene.store,
        inbox: scene.inbox,
        readOnly: true,
      } as never);
      const reader = new Client(mounted.origin);
      const detail = await reader.get(`${BASE}/receipt?provider=stripe&id=evt_stuck`);
      expect(detail.text).not.toContain('/receipt/release');
      const confirm = await reader.get(`${BASE}/receipt/release?provider=stripe&id=evt_stuck`);
      expect(confirm.status).toBe(403);
      const token = tokenOf(
        (await reader.get(`${BASE}/receipts`)).text.replace(/^/, '<input name="csrf" value="x">'),
      );
      expect(
        (await reader.post(`${BASE}/receipt/release?provider=stripe&id=evt_stuck`, { csrf: token }))
          .status,
      ).toBe(403);
      expect(
        (
          await scene.store.find(
            { provider: 'stripe', externalId: 'evt_stuck' },
            { now: Date.now() },
          )
        )?.status,
      ).toBe('processing');
    });
  },
);

describe('the inbox list by received time', () => {
  /** The delivery ids a listing page links to, in its order. */
  // A listed id is a link whose text is the id, isolated in a <bdi>.
  const listed = (page: string) =>
    [...page.matchAll(/><bdi>(evt_\d+)<\/bdi><\/a>/g)].map((m) => m[1]);
  const evts = (from: number, to: number) =>
    Array.from({ length: to - from + 1 }, (_, i) => `evt_${from + i}`);
  /** A link of the page, as the browser follows it (the markup escapes `&`). */
  const href = (page: string, pattern: RegExp) => pattern.exec(page)?.[1]?.replaceAll('&amp;', '&');

  it('lists the deliveries received in the range (UTC), paged by id, with the range kept in the page links', async () => {
    // One delivery a minute on the inbox's own clock: evt_0 at 10:00 UTC, evt_69 at 11:09.
    let time = Date.UTC(2026, 0, 1, 10);
    const inbox = new InMemoryInbox({ now: () => time });
    for (let i = 0; i < 70; i++, time += 60_000)
      await inbox.enqueue({
        provider: 'stripe',
        externalId: `evt_${i}`,
        orderingKey: null,
        headers: {},
        body: Buffer.from('{}'),
      });
    const mounted = await mounts[0]!.mount({
      basePath: '/d',
      authorize: () => true,
      receipts: new InMemoryStore(),
      inbox,
    } as never);
    try {
      const client = new Client(mounted.origin);
      const first = await client.get('/d/deliveries?from=2026-01-01T10:05&to=2026-01-01T11:00');
      expect(first.status).toBe(200);
      expect(listed(first.text)).toEqual(evts(5, 54));
      expect(first.text).toContain(
        'Received from (UTC)<input type="datetime-local" name="from" value="2026-01-01T10:05">',
      );
      expect(first.text).toContain(
        'Received before (UTC)<input type="datetime-local" name="to" value="2026-01-01T11:00">',
      );
      const next = href(first.text, /<a href="([^"]+)" rel="next">/);
      expect(next).toMatch(
        /^\/d\/deliveries\?from=2026-01-01T10%3A05&to=2026-01-01T11%3A00&after=\d+$/,
      );
      const second = await client.get(next!);
      expect(listed(second.text)).toEqual(evts(55, 59));
      expect(second.text).not.toContain('rel="next"');
      expect(href(second.text, /<a href="([^"]+)">First page<\/a>/)).toBe(
        '/d/deliveries?from=2026-01-01T10%3A05&to=2026-01-01T11%3A00',
      );
      expect(listed((await client.get('/d/deliveries?to=2026-01-01T10:02')).text)).toEqual(
        evts(0, 1),
      );
      // An id looked up directly is shown only when it was received in the range.
      const byId = (id: string) => `/d/deliveries?provider=stripe&id=${id}&from=2026-01-01T10:05`;
      expect(listed((await client.get(byId('evt_4'))).text)).toEqual([]);
      expect(listed((await client.get(byId('evt_5'))).text)).toEqual(['evt_5']);
      const bad = await client.get('/d/deliveries?to=yesterday');
      expect(bad.status).toBe(400);
      expect(bad.text).toContain('to: must be a date and time');
    } finally {
      await mounted.close();
    }
  });
});

describe('the dashboard without an inbox', () => {
  it('has no inbox pages', async () => {
    const mounted = await mounts[0]!.mount({
      basePath: '/d',
      authorize: () => true,
      receipts: new InMemoryStore(),
    } as never);
    try {
      const client = new Client(mounted.origin);
      const overview = await client.get('/d');
      expect(overview.status).toBe(200);
      expect(overview.text).not.toContain('/d/deliveries');
      expect((await client.get('/d/deliveries')).status).toBe(404);
    } finally {
      await mounted.close();
    }
  });

  it('refuses options it does not know, and a basePath that is not a path', async () => {
    const { createDashboard } = await import('../src');
    const base = { authorize: () => true, receipts: new InMemoryStore(), basePath: '/d' };
    expect(() => createDashboard({ ...base, open: true } as never)).toThrow(/open/);
    for (const basePath of ['admin', '/a?b', '/a/../b', undefined])
      expect(() => createDashboard({ ...base, basePath } as never)).toThrow(ConfigError);
    expect(() => createDashboard({ ...base, secret: 'short' })).toThrow(/secret/);
    expect(() =>
      createDashboard({ ...base, inbox: new InMemoryInbox(), staleAfterSeconds: 0 }),
    ).toThrow(/staleAfterSeconds/);
  });
});

describe.each(behindParsers.map((m) => [m.label, m] as const))(
  'the dashboard on %s',
  (_name, entry) => {
    it('mounts, and performs an action with its token', async () => {
      const scene = await seedMemory();
      const mounted = await entry.mount({
        basePath: BASE,
        authorize: isAdmin,
        receipts: scene.store,
        inbox: scene.inbox,
      } as never);
      try {
        const admin = new Client(mounted.origin, ADMIN);
        const path = `${BASE}/receipt/release?provider=stripe&id=evt_stuck`;
        const token = tokenOf((await admin.get(path)).text);
        expect((await admin.post(path, { csrf: 'forged' })).status).toBe(403);
        expect((await admin.post(path, { csrf: token })).status).toBe(303);
        expect(
          (
            await scene.store.find(
              { provider: 'stripe', externalId: 'evt_stuck' },
              { now: Date.now() },
            )
          )?.status,
        ).toBe('failed');
      } finally {
        await mounted.close();
      }
    });
  },
);
