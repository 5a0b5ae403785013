/**
 * The dashboard and stored text, in a real Chromium over a seeded SQLite file: a key the store
 * accepts (at most 160 code points) but longer than 160 UTF-16 units has a detail page and is
 * released from it; a stored value holding an unclosed right-to-left override (U+202E) sits in a
 * bidi isolate of its own on every page that shows it, so the page's own words keep their order;
 * a request-chosen name (`?done=constructor`, a path like `…constructor`) never finds a property
 * every object inherits.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { InboxSchema, ReceiptsAdmin, Schema, SqlInbox } from '@webhook-idempotency/sql';
import { sqliteFile } from '@webhook-idempotency/sql/test/helpers/databases';
import { seedReceipts } from '@webhook-idempotency/sql/test/helpers/seed';
import { createDashboard } from '../../src';
import { launchChromium, SHOTS } from '../helpers/browser';
import { isAdmin, type Mounted, mounts } from '../helpers/mounts';

const BASE = '/admin/hooks';
const MINUTE = 60_000;
const RLO = '\u202e';
/** 81 code points, 161 UTF-16 units: within the store's 160-character limit. */
const EMOJI_ID = `k${'🔑'.repeat(80)}`;
/** Ids and texts with a right-to-left override that nothing closes. */
const RLO_ID = `evt_${RLO}rlo`;
const RLO_PROVIDER = `pay${RLO}x`;
const RLO_ERROR = `Error: ${RLO}the handler gave up`;
const RLO_DELIVERY = `in_${RLO}dead`;
const express = mounts.find((m) => m.name === 'express')!;

let browser: Browser;
let db: Database.Database;
let mounted: Mounted;
let context: BrowserContext;
let page: Page;
const q = (value: string) => encodeURIComponent(value);
const status = (provider: string, id: string) =>
  (
    db
      .prepare('SELECT status FROM webhook_receipts WHERE provider = ? AND external_id = ?')
      .get(provider, id) as { status?: string } | undefined
  )?.status;

beforeAll(async () => {
  browser = await launchChromium();
  db = new Database(sqliteFile('dashboard-stored-text'));
  await Schema.createTable(db);
  await InboxSchema.createTable(db);
  await seedReceipts(db, 'webhook_receipts', [
    { provider: 'stripe', externalId: EMOJI_ID, status: 'processing', ageMs: 20 * MINUTE },
    { provider: 'stripe', externalId: RLO_ID, status: 'processing', ageMs: 20 * MINUTE },
    {
      provider: RLO_PROVIDER,
      externalId: 'evt_plain',
      status: 'failed',
      ageMs: MINUTE,
      error: RLO_ERROR,
    },
  ]);
  const inbox = new SqlInbox(db);
  await inbox.enqueue({
    provider: 'stripe',
    externalId: RLO_DELIVERY,
    orderingKey: `cus_${RLO}1`,
    headers: { 'x-note': `${RLO}value`, [`x-${RLO}name`]: 'v' },
    body: Buffer.from(`{"note":"${RLO}body"}`),
  });
  const [leased] = await inbox.lease({ providers: ['stripe'], limit: 1, leaseMs: 60_000 });
  await inbox.bury(leased!, { error: RLO_ERROR });
  mounted = await express.mount({
    basePath: BASE,
    authorize: isAdmin,
    receipts: new ReceiptsAdmin(db),
    inbox,
  } as never);
  context = await browser.newContext({
    viewport: { width: 1280, height: 800 },
    extraHTTPHeaders: { 'x-admin': 'yes' },
  });
  page = await context.newPage();
});
afterAll(async () => {
  await context?.close();
  await browser?.close();
  await mounted?.close();
  db?.close();
});

describe('a key longer than 160 UTF-16 units that the store accepts', () => {
  it('is found by the search, has a detail page, and is released from it', async () => {
    expect(EMOJI_ID.length).toBe(161);
    expect([...EMOJI_ID]).toHaveLength(81);
    const search = await page.goto(`${mounted.origin}${BASE}/receipts?id=${q(EMOJI_ID)}`);
    expect(search?.status()).toBe(200);
    await page.getByRole('link', { name: EMOJI_ID }).click();
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(
      `Receipt stripe ${EMOJI_ID}`,
    );
    await page.getByRole('link', { name: 'Release this claim…' }).click();
    await page.getByRole('button', { name: 'Release the claim' }).click();
    await page.waitForURL(/done=released/);
    await expect(page.getByRole('status').first().textContent()).resolves.toContain('Released');
    expect(status('stripe', EMOJI_ID)).toBe('failed');
  });

  it('the search field takes the whole key', async () => {
    await page.goto(`${mounted.origin}${BASE}/receipts`);
    await page.getByLabel('Event id').fill(EMOJI_ID);
    await expect(page.getByLabel('Event id').inputValue()).resolves.toBe(EMOJI_ID);
  });

  it('what the store refuses is still a 400 naming the field, never a store error', async () => {
    for (const [query, message] of [
      [`provider=stripe&id=${q('🔑'.repeat(161))}`, /id: is 161 characters long; the limit is 160/],
      [`provider=${q('p'.repeat(161))}&id=x`, /provider: is 161 characters long/],
      [`provider=stripe&id=a%00b`, /id: contains a NUL character/],
    ] as const) {
      const response = await page.goto(`${mounted.origin}${BASE}/receipt?${query}`);
      expect(response?.status()).toBe(400);
      await expect(page.getByRole('alert').textContent()).resolves.toMatch(message);
    }
  });
});

/**
 * Run in the page (as text: the project's types have no DOM) on the values shown whole: every text
 * node holding U+202E whose nearest bidi-isolating ancestor (computed `unicode-bidi` isolate,
 * isolate-override or plaintext: a `<bdi>`, an element with `dir`, and every block, which the UA
 * stylesheet isolates) holds anything but one of them. Page text of its own in that element would
 * be reordered. Returns what each such element holds.
 */
const UNISOLATED = `(values) => {
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const isolating = ['isolate', 'isolate-override', 'plaintext'];
  const bad = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!node.data.includes('\u202e')) continue;
    let el = node.parentElement;
    while (el && !isolating.includes(getComputedStyle(el).unicodeBidi)) el = el.parentElement;
    if (!el || !values.includes(el.textContent)) bad.push((el ? el.tagName : 'none') + ': ' + (el || node).textContent);
  }
  return bad;
}`;
const unisolated = (values: readonly string[]): Promise<string[]> =>
  page.evaluate(`(${UNISOLATED})(${JSON.stringify(values)})`);

/**
 * Run in the page: the screen boxes of the visible characters of the first element `selector`
 * finds (the invisible direction controls left out), in the DOM's order, as [character, left, right].
 */
const GLYPHS = `(selector) => {
  const element = document.querySelector(selector);
  const out = [];
  const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (let i = 0; i < node.data.length; i++) {
      if ('\u202e\u2068\u2069'.includes(node.data[i])) continue;
      const range = document.createRange();
      range.setStart(node, i);
      range.setEnd(node, i + 1);
      const box = range.getBoundingClientRect();
      if (box.width > 0) out.push([node.data[i], box.left, box.right]);
    }
  }
  return out;
}`;
const glyphs = (selector: string): Promise<Array<[string, number, number]>> =>
  page.evaluate(`(${GLYPHS})(${JSON.stringify(selector)})`);

/**
 * Asserts that the page's own words `before` and `after` the stored `value` in `selector` are
 * drawn left of all of it and right of all of it, as they are read.
 */
async function keepsOrder(selector: string, value: string, before: string, after: string) {
  const boxes = await glyphs(selector);
  const text = boxes.map(([c]) => c).join('');
  const visible = value.replace(RLO, '');
  const start = text.indexOf(visible);
  const end = start + visible.length;
  const from = text.lastIndexOf(before, start);
  const to = text.indexOf(after, end);
  expect({ text, found: Math.min(start, from, to) >= 0 }).toEqual({ text, found: true });
  const inside = boxes.slice(start, end);
  const left = Math.min(...inside.map(([, l]) => l));
  const right = Math.max(...inside.map(([, , r]) => r));
  const beforeRight = Math.max(...boxes.slice(from, from + before.length).map(([, , r]) => r));
  const afterLeft = Math.min(...boxes.slice(to, to + after.length).map(([, l]) => l));
  expect(beforeRight).toBeLessThanOrEqual(left + 0.5);
  expect(afterLeft).toBeGreaterThanOrEqual(right - 0.5);
}

describe('a stored value with an unclosed right-to-left override', () => {
  /** The values holding U+202E that the pages show, each whole. */
  const SHOWN = [
    RLO_ID,
    `${RLO_ID}_missing`,
    RLO_PROVIDER,
    RLO_ERROR,
    RLO_DELIVERY,
    `cus_${RLO}1`,
    `${RLO}value`,
    `x-${RLO}name`,
    JSON.stringify({ note: `${RLO}body` }, null, 2),
  ];
  const pages = [
    '/',
    '/receipts',
    `/receipts?provider=${q(RLO_PROVIDER)}`,
    `/receipt?provider=stripe&id=${q(RLO_ID)}`,
    `/receipt/release?provider=stripe&id=${q(RLO_ID)}`,
    `/receipt?provider=${q(RLO_PROVIDER)}&id=evt_plain`,
    `/receipt?provider=stripe&id=${q(`${RLO_ID}_missing`)}`,
    '/deliveries',
    `/delivery?provider=stripe&id=${q(RLO_DELIVERY)}`,
    `/delivery/retry?provider=stripe&id=${q(RLO_DELIVERY)}`,
    `/delivery/redeliver?provider=stripe&id=${q(RLO_DELIVERY)}`,
    `/delivery/body?provider=stripe&id=${q(RLO_DELIVERY)}`,
    '/deliveries/retry-dead?provider=stripe',
    `/purge?retentionDays=0&provider=${q(RLO_PROVIDER)}`,
  ];

  it.each(pages)('is isolated on %s', async (path) => {
    await page.goto(`${mounted.origin}${BASE}${path}`);
    const shown = await page.evaluate(`document.body.textContent.split('\\u202e').length - 1`);
    expect(shown).toBeGreaterThan(0);
    expect(await unisolated(SHOWN)).toEqual([]);
  });

  it.each([
    [
      'the heading of a confirmation',
      `/receipt/release?provider=stripe&id=${q(RLO_ID)}`,
      'h1',
      RLO_ID,
      'Release',
      '?',
    ],
    [
      'a 404 notice',
      `/receipt?provider=stripe&id=${q(`${RLO_ID}_x`)}`,
      '[role=alert]',
      `${RLO_ID}_x`,
      'No receipt',
      '.',
    ],
    [
      'the count of a purge',
      `/purge?retentionDays=0&provider=${q(RLO_PROVIDER)}`,
      'main [role=status]',
      RLO_PROVIDER,
      'every finished',
      'receipts',
    ],
  ])(
    "leaves the page's own words in their order: %s",
    async (_name, path, selector, value, before, after) => {
      await page.goto(`${mounted.origin}${BASE}${path}`);
      await page.screenshot({
        path: join(SHOTS, `rlo-${before.split(' ')[0]!.toLowerCase()}.png`),
      });
      await keepsOrder(selector, value, before, after);
    },
  );

  it('is isolated in the title, which cannot hold markup', async () => {
    await page.goto(`${mounted.origin}${BASE}/receipt?provider=stripe&id=${q(RLO_ID)}`);
    await expect(page.title()).resolves.toBe(`Receipt \u2068${RLO_ID}\u2069 · webhook-idempotency`);
    await page.goto(`${mounted.origin}${BASE}/delivery?provider=stripe&id=${q(RLO_DELIVERY)}`);
    await expect(page.title()).resolves.toBe(
      `Delivery \u2068${RLO_DELIVERY}\u2069 · webhook-idempotency`,
    );
  });

  it('is copied exactly as stored: the isolation adds no character', async () => {
    await page.goto(`${mounted.origin}${BASE}/receipts`);
    await expect(page.getByRole('link', { name: RLO_ID }).textContent()).resolves.toBe(RLO_ID);
  });
});

describe('names a request chooses', () => {
  const inherited = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'];

  it.each(inherited)('?done=%s shows no notice', async (name) => {
    for (const path of [
      `/receipt?provider=${q(RLO_PROVIDER)}&id=evt_plain&done=${name}`,
      `/delivery?provider=stripe&id=${q(RLO_DELIVERY)}&done=${name}`,
    ]) {
      const response = await page.goto(`${mounted.origin}${BASE}${path}`);
      expect(response?.status()).toBe(200);
      await expect(page.locator('main .notice').count()).resolves.toBe(0);
      await expect(page.locator('main').textContent()).resolves.not.toMatch(
        /native code|\[object|function/,
      );
    }
  });

  it('a notice the page knows still shows', async () => {
    await page.goto(
      `${mounted.origin}${BASE}/receipt?provider=${q(RLO_PROVIDER)}&id=evt_plain&done=released`,
    );
    await expect(page.locator('main .notice').textContent()).resolves.toMatch(/^Released/);
  });

  it.each(inherited)('a path ending in %s is no route of the dashboard', async (name) => {
    const dashboard = createDashboard({
      basePath: BASE,
      authorize: () => true,
      receipts: new ReceiptsAdmin(db),
    });
    for (const method of ['GET', 'POST']) {
      const answer = await dashboard.handle({
        method,
        url: `${BASE}${name}`,
        headers: {},
        rawBody: undefined,
        body: undefined,
        native: undefined,
        secure: false,
      });
      expect({ method, status: answer.status }).toEqual({ method, status: 404 });
    }
  });
});
