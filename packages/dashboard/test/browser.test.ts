/**
 * The dashboard in a real Chromium (Debian's `chromium`, driven by playwright-core; one browser
 * for every case), mounted on Express over a seeded SQLite file and a seeded PostgreSQL database.
 * Loads each page (the outbox's too), searches, opens a detail, releases a stuck claim and retries a dead delivery
 * by clicking through the confirmation pages, and reads the database afterwards; an unauthorized
 * browser gets 401 and changes nothing; a forged POST without the token changes nothing; a stored
 * `<script>` is shown as text and never runs; the pages read without JavaScript and at phone
 * width. Screenshots of each page go to .tmp/screenshots/dashboard (gitignored);
 * `WI_UPDATE_DOCS=1` rewrites the README's picture from the overview.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { ReceiptsAdmin, type SqlConnection, type SqlInbox } from '@webhook-idempotency/sql';
import { pgDatabase, sqliteFile } from '@webhook-idempotency/sql/test/helpers/databases';
import { type Mounted, mounts } from './helpers/mounts';
import { MESSAGE, seedOutbox, seedSql } from './helpers/seed';

const BASE = '/admin/hooks';
const ROOT = join(__dirname, '..', '..', '..');
const SHOTS = join(ROOT, '.tmp', 'screenshots', 'dashboard');
const express = mounts.find((m) => m.name === 'express')!;

let browser: Browser;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  browser = await chromium.launch({
    executablePath: process.env.WI_CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      // No --user-data-dir: playwright-core launches every browser on a fresh, empty profile of
      // its own (and refuses the flag).
    ],
  });
});
afterAll(async () => {
  await browser?.close();
});

interface Target {
  readonly db: SqlConnection;
  readonly status: (provider: string, id: string) => Promise<string | undefined>;
  close(): Promise<void>;
}

const targets: Array<[string, () => Promise<Target>]> = [
  [
    'SQLite',
    async () => {
      const db = new Database(sqliteFile('dashboard'));
      db.pragma('journal_mode = WAL');
      const read = (provider: string, id: string) =>
        (
          db
            .prepare('SELECT status FROM webhook_receipts WHERE provider = ? AND external_id = ?')
            .get(provider, id) as { status?: string } | undefined
        )?.status;
      return { db, status: async (p, i) => read(p, i), close: async () => void db.close() };
    },
  ],
  [
    'PostgreSQL',
    async () => {
      const pool = new pg.Pool({
        connectionString: await pgDatabase('wi_dashboard_browser'),
        max: 4,
      });
      const status = async (provider: string, id: string) =>
        (
          await pool.query(
            'SELECT status FROM webhook_receipts WHERE provider = $1 AND external_id = $2',
            [provider, id],
          )
        ).rows[0]?.status as string | undefined;
      return { db: pool, status, close: () => pool.end() };
    },
  ],
];

/**
 * Run in the page: every element with text of its own whose WCAG 2 contrast against the background
 * it is drawn on falls short of AA (4.5:1, or 3:1 for large text), and every form control without a
 * label. Backgrounds are the nearest opaque ones up the tree (the page's own colours are opaque).
 */
const ACCESSIBILITY_PROBLEMS = `(() => {
  const rgb = (text) => (text.match(/[\\d.]+/g) || []).map(Number);
  const luminance = ([r, g, b]) => {
    const c = [r, g, b].map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
  };
  const background = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const c = rgb(getComputedStyle(e).backgroundColor);
      if (c.length === 3 || (c.length === 4 && c[3] === 1)) return c.slice(0, 3);
    }
    return [255, 255, 255];
  };
  const problems = [];
  for (const el of document.querySelectorAll('body *')) {
    const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim() !== '');
    const style = getComputedStyle(el);
    if (!own || style.visibility === 'hidden' || style.display === 'none' || el.getClientRects().length === 0) continue;
    const [fg, bg] = [rgb(style.color).slice(0, 3), background(el)];
    const [a, b] = [luminance(fg), luminance(bg)].sort((x, y) => y - x);
    const ratio = (a + 0.05) / (b + 0.05);
    const size = parseFloat(style.fontSize);
    const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
    if (ratio < (large ? 3 : 4.5)) problems.push(el.tagName + ' "' + el.textContent.trim().slice(0, 40) + '" ' + ratio.toFixed(2) + ':1');
  }
  for (const el of document.querySelectorAll('input:not([type=hidden]), select, textarea')) {
    if (el.labels.length === 0 && !el.getAttribute('aria-label')) problems.push('unlabelled ' + el.tagName + ' ' + (el.name || ''));
  }
  return problems;
})()`;

describe.each(targets)('the dashboard in Chromium over %s', (name, open) => {
  let target: Target;
  let inbox: SqlInbox;
  let mounted: Mounted;
  let admin: BrowserContext;
  let page: Page;
  // JPEG: quicker to encode than PNG, and these are for looking at, not for diffing.
  const shot = (file: string, on: Page = page) =>
    on.screenshot({
      path: join(SHOTS, `${name.toLowerCase()}-${file}.jpg`),
      fullPage: true,
      type: 'jpeg',
      quality: 80,
    });

  beforeAll(async () => {
    target = await open();
    inbox = await seedSql(target.db);
    mounted = await express.mount({
      basePath: BASE,
      authorize: (req: { headers: Record<string, unknown> }) => req.headers['x-admin'] === 'yes',
      receipts: new ReceiptsAdmin(target.db),
      inbox,
      outbox: await seedOutbox(target.db),
    } as never);
    admin = await browser.newContext({
      viewport: { width: 1280, height: 800 },
      extraHTTPHeaders: { 'x-admin': 'yes' },
    });
    page = await admin.newPage();
  });
  afterAll(async () => {
    await admin?.close();
    await mounted?.close();
    await target?.close();
  });

  it('shows the overview: counts, the stuck claim, the dead delivery, the last hour', async () => {
    const response = await page.goto(`${mounted.origin}${BASE}/`);
    expect(response?.status()).toBe(200);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Overview');
    const stuck = page.getByRole('region', { name: 'Stuck receipts' });
    await expect(stuck.getByRole('link', { name: 'evt_stuck' }).count()).resolves.toBe(1);
    await expect(stuck.getByRole('link', { name: 'gh-fresh' }).count()).resolves.toBe(0);
    await expect(
      page
        .getByRole('region', { name: 'Dead deliveries' })
        .getByRole('link', { name: 'evt_dead' })
        .count(),
    ).resolves.toBe(1);
    await expect(
      page.locator('svg.chart rect[data-label]').count(),
    ).resolves.toBeGreaterThanOrEqual(120);
    if (name === 'SQLite' && process.env.WI_UPDATE_DOCS === '1')
      await page.screenshot({
        path: join(__dirname, '..', 'docs', 'overview.png'),
        clip: { x: 0, y: 0, width: 1280, height: 800 },
      });
    // The script ran (a nonce the policy allows): the bars read out with the keyboard.
    // Three charts: the day's answer time (the two figures), then the last hour's two.
    await expect(page.locator('figure.enhanced').count()).resolves.toBe(3);
    const deliveries = page.locator('figure:has(#chart-deliveries)');
    await deliveries.locator('rect[tabindex="0"]').first().focus();
    await expect(deliveries.locator('.readout').textContent()).resolves.toMatch(
      /UTC: \d+ completed, \d+ failed/,
    );
    const day = page.locator('figure:has(#chart-day)');
    await day.locator('rect[tabindex="0"]').last().focus();
    await expect(day.locator('.readout').textContent()).resolves.toMatch(
      /UTC: (nothing completed|mean .+, \d+ completed)/,
    );
    await shot('overview');
  });

  it('searches the receipts and opens one', async () => {
    await page.goto(`${mounted.origin}${BASE}/receipts`);
    await page.getByLabel('Provider').fill('github');
    await page.getByLabel('Status').selectOption('failed');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(/status=failed/);
    const rows = page.locator('tbody tr');
    await expect(rows.count()).resolves.toBe(1);
    await shot('receipts');
    await page.getByRole('link', { name: 'gh-<b>1</b>' }).click();
    await expect(page.getByText('Error: <img src=x onerror=alert(1)>').count()).resolves.toBe(1);
    await expect(page.locator('main img').count()).resolves.toBe(0);
    await shot('receipt');
  });

  it('shows a stored <script> body as text, only when asked, and never runs it', async () => {
    await page.goto(`${mounted.origin}${BASE}/receipt?provider=stripe&id=evt_done`);
    await expect(page.getByText('__pwned').count()).resolves.toBe(0);
    await page.getByRole('link', { name: 'Show the body' }).click();
    await expect(page.locator('pre').textContent()).resolves.toBe(
      '<script>window.__pwned = 1</script><b>not bold</b>',
    );
    await expect(
      page.evaluate(() => (globalThis as { __pwned?: number }).__pwned),
    ).resolves.toBeUndefined();
    await expect(page.locator('main b').count()).resolves.toBe(0);
    await shot('answer');
  });

  it('releases the stuck claim through its confirmation page', async () => {
    await page.goto(`${mounted.origin}${BASE}/`);
    await page
      .getByRole('region', { name: 'Stuck receipts' })
      .getByRole('link', { name: 'Release…' })
      .click();
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toContain(
      'Release stripe evt_stuck?',
    );
    await shot('release');
    expect(await target.status('stripe', 'evt_stuck')).toBe('processing');
    await page.getByRole('button', { name: 'Release the claim' }).click();
    await page.waitForURL(/done=released/);
    await expect(page.getByRole('status').first().textContent()).resolves.toContain('Released');
    expect(await target.status('stripe', 'evt_stuck')).toBe('failed');
  });

  it('retries the dead delivery through its confirmation page', async () => {
    await page.goto(`${mounted.origin}${BASE}/deliveries?status=dead`);
    await shot('deliveries');
    await page.getByRole('link', { name: 'evt_dead' }).click();
    await expect(page.getByText('abcdef0123456789').count()).resolves.toBe(0);
    await shot('delivery');
    await page.getByRole('link', { name: 'Retry…' }).click();
    await shot('retry');
    await page.getByRole('button', { name: 'Retry the delivery' }).click();
    await page.waitForURL(/done=retried/);
    expect((await inbox.find('stripe', 'evt_dead'))?.status).toBe('pending');
  });

  it('shows what the other repairs would do before they are confirmed', async () => {
    await page.goto(
      `${mounted.origin}${BASE}/delivery/redeliver?provider=stripe&id=evt_inbox_done`,
    );
    await expect(page.getByLabel('Run its handler again').count()).resolves.toBe(1);
    await shot('redeliver');
    await page.goto(`${mounted.origin}${BASE}/deliveries/retry-dead`);
    await expect(page.getByRole('status').textContent()).resolves.toMatch(/dead deliver/);
    await shot('retry-dead');
    await page.goto(`${mounted.origin}${BASE}/purge`);
    await page.getByLabel('Keep receipts finished within (days)').fill('0');
    await page.getByRole('button', { name: 'Count' }).click();
    await expect(page.getByRole('status').textContent()).resolves.toMatch(
      /receipts? would be deleted now/,
    );
    await shot('purge');
    await page.goto(`${mounted.origin}${BASE}/delivery/body?provider=stripe&id=evt_dead`);
    await expect(page.locator('pre').textContent()).resolves.toContain(
      '<script>window.__pwned = 2</script>',
    );
    await shot('delivery-body');
    expect(await target.status('stripe', 'evt_done')).toBe('completed');
  });

  it('refuses a forged POST without the token, and a browser authorize refuses gets 401 and changes nothing', async () => {
    await page.goto(`${mounted.origin}${BASE}/`);
    // The browser's own cookies, no token: what a page on another site could make a browser send at most.
    const forged = (
      await admin.request.post(
        `${mounted.origin}${BASE}/receipt/release?provider=github&id=gh-fresh`,
        {
          form: { force: '1' },
          headers: { origin: mounted.origin },
        },
      )
    ).status();
    expect(forged).toBe(403);
    expect(await target.status('github', 'gh-fresh')).toBe('processing');
    const stranger = await browser.newContext();
    try {
      const other = await stranger.newPage();
      const response = await other.goto(
        `${mounted.origin}${BASE}/receipt/release?provider=github&id=gh-fresh`,
      );
      expect(response?.status()).toBe(401);
      const posted = (
        await stranger.request.post(
          `${mounted.origin}${BASE}/receipt/release?provider=github&id=gh-fresh`,
          {
            form: { force: '1' },
          },
        )
      ).status();
      expect(posted).toBe(401);
    } finally {
      await stranger.close();
    }
    expect(await target.status('github', 'gh-fresh')).toBe('processing');
  });

  it('meets WCAG AA contrast and labels every control on each page', async () => {
    const pages = [
      '/',
      '/receipts',
      '/receipts?status=failed',
      '/receipt?provider=stripe&id=evt_done',
      '/deliveries',
      '/delivery?provider=stripe&id=evt_dead',
      '/delivery/retry?provider=stripe&id=evt_dead',
      '/outbox',
      `/outbox/message?sender=http&key=${MESSAGE.externalId}`,
      `/outbox/retry?sender=http&key=${MESSAGE.externalId}`,
      '/purge',
    ];
    for (const path of pages) {
      const response = await page.goto(`${mounted.origin}${BASE}${path}`);
      expect({
        path,
        status: response?.status(),
        problems: await page.evaluate(ACCESSIBILITY_PROBLEMS),
      }).toEqual({ path, status: 200, problems: [] });
    }
  });

  it('reads without JavaScript, and fits a phone', async () => {
    const phone = await browser.newContext({
      javaScriptEnabled: false,
      viewport: { width: 375, height: 740 },
      extraHTTPHeaders: { 'x-admin': 'yes' },
    });
    try {
      const small = await phone.newPage();
      await small.goto(`${mounted.origin}${BASE}/`);
      await expect(
        small.getByRole('heading', { name: 'Receipts by provider' }).count(),
      ).resolves.toBe(1);
      await expect(small.locator('figure.enhanced').count()).resolves.toBe(0);
      const overflow = await small.evaluate(() => {
        const { documentElement: root } = (
          globalThis as unknown as {
            document: { documentElement: { scrollWidth: number; clientWidth: number } };
          }
        ).document;
        return root.scrollWidth - root.clientWidth;
      });
      expect(overflow).toBeLessThanOrEqual(0);
      await shot('overview-phone', small);
      await small.goto(`${mounted.origin}${BASE}/receipts`);
      await expect(small.getByLabel('Event id').count()).resolves.toBe(1);
      await shot('receipts-phone', small);
    } finally {
      await phone.close();
    }
  });
});
