/**
 * Long ids on a phone, in a real Chromium over a seeded SQLite file: at 390 px the listings (the
 * receipts, the inbox, the overview's stuck and dead lists, the bulk retry's dry run) stay lists
 * of readable rows: the page does not scroll sideways, a page of 50 rows stays a few screens tall,
 * no id is squeezed into a column a few characters wide, and every id is shown whole (it is what
 * an operator copies). At 1280 px the id column keeps a readable width too. Screenshots go to
 * .tmp/screenshots/dashboard (gitignored).
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { InboxSchema, ReceiptsAdmin, Schema, SqlInbox } from '@webhook-idempotency/sql';
import { sqliteFile } from '@webhook-idempotency/sql/test/helpers/databases';
import { type SeedReceipt, seedReceipts } from '@webhook-idempotency/sql/test/helpers/seed';
import { launchChromium, SHOTS } from '../helpers/browser';
import { isAdmin, type Mounted, mounts } from '../helpers/mounts';

const BASE = '/admin/hooks';
const MINUTE = 60_000;
const ROWS = 50;
const hex = (seed: string) => createHash('sha256').update(seed).digest('hex');
/** Long ids as providers send them: a digest (64 characters, nowhere to break), an order id with separators. */
const longId = (i: number) =>
  i % 2 ? `evt_${hex(`r${i}`)}` : `shop-order-${i}-${hex(`s${i}`).slice(0, 48)}`;
const ERROR = `Error: the upstream inventory service answered 502 Bad Gateway after 30000 ms (${'retrying later; '.repeat(8)})`;
const express = mounts.find((m) => m.name === 'express')!;
/** The narrowest an id cell may be, in characters. */
const MIN_ID_CHARS = 16;
/**
 * The tallest a row may be, in CSS pixels: a 64-character id takes two lines on a phone, its
 * status, counts and times two more, its error one (on a 1280 px screen, at most two).
 */
const MAX_ROW_PX = 140;
/** The page around the rows: the navigation, the filters, the pager (the overview's sections). */
const PAGE_PX = 1200;
/** The overview's two figures above its lists: a table of one row per provider (a card each on a phone). */
const FIGURES_PX = 600;

let browser: Browser;
let db: Database.Database;
let mounted: Mounted;
const receiptIds: string[] = [];
const deliveryIds: string[] = [];

beforeAll(async () => {
  browser = await launchChromium();
  db = new Database(sqliteFile('dashboard-phone-ids'));
  await Schema.createTable(db);
  await InboxSchema.createTable(db);
  const receipts: SeedReceipt[] = [];
  for (let i = 0; i < ROWS; i++) {
    const externalId = longId(i);
    receiptIds.push(externalId);
    receipts.push(
      i < 10
        ? { provider: 'shopify', externalId, status: 'processing', ageMs: (20 + i) * MINUTE }
        : { provider: 'stripe', externalId, status: 'failed', ageMs: i * MINUTE, error: ERROR },
    );
  }
  await seedReceipts(db, 'webhook_receipts', receipts);
  const inbox = new SqlInbox(db);
  for (let i = 0; i < ROWS; i++) {
    const externalId = `in_${hex(`d${i}`)}`;
    deliveryIds.push(externalId);
    await inbox.enqueue({
      provider: 'stripe',
      externalId,
      orderingKey: null,
      headers: {},
      body: Buffer.from('{}'),
    });
  }
  for (const leased of await inbox.lease({ providers: ['stripe'], limit: ROWS, leaseMs: 60_000 }))
    await inbox.bury(leased, { error: ERROR });
  mounted = await express.mount({
    basePath: BASE,
    authorize: isAdmin,
    receipts: new ReceiptsAdmin(db),
    inbox,
  } as never);
});
afterAll(async () => {
  await browser?.close();
  await mounted?.close();
  db?.close();
});

/** What a listing looks like in the browser. */
interface Measured {
  /** The document's height and how far it scrolls sideways, in CSS pixels. */
  readonly height: number;
  readonly overflow: number;
  /**
   * Each cell of a column headed `id`: its text, its width in characters of its own font (`0`s),
   * and the height of its row.
   */
  readonly ids: ReadonlyArray<{
    readonly text: string;
    readonly chars: number;
    readonly row: number;
  }>;
}

/**
 * Run in the page (as text: the project's types have no DOM): the page's size, and each id cell's
 * text, width in `0`s of its own font, and row height.
 */
const MEASURE = `(() => {
  const canvas = document.createElement('canvas').getContext('2d');
  const ids = [];
  for (const table of document.querySelectorAll('table')) {
    const column = [...table.querySelectorAll('thead th')].map((th) => th.textContent).indexOf('id');
    if (column < 0) continue;
    for (const row of table.querySelectorAll('tbody tr')) {
      const cell = row.children[column];
      const style = getComputedStyle(cell);
      canvas.font = style.fontWeight + ' ' + style.fontSize + ' ' + style.fontFamily;
      const width = cell.getBoundingClientRect().width - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
      ids.push({ text: cell.textContent, chars: width / canvas.measureText('0').width, row: row.getBoundingClientRect().height });
    }
  }
  const root = document.documentElement;
  return { height: root.scrollHeight, overflow: root.scrollWidth - root.clientWidth, ids };
})()`;

describe.each([
  ['a phone', 390, 844],
  ['a desktop', 1280, 800],
])('long ids on %s', (_device, width, height) => {
  let context: BrowserContext;
  let page: Page;
  beforeAll(async () => {
    context = await browser.newContext({
      viewport: { width, height },
      extraHTTPHeaders: { 'x-admin': 'yes' },
    });
    page = await context.newPage();
  });
  afterAll(() => context?.close());

  it.each([
    ['the receipts', 'receipts', '/receipts', () => receiptIds, 1, PAGE_PX],
    ['the inbox', 'deliveries', '/deliveries', () => deliveryIds, 1, PAGE_PX],
    ['the bulk retry', 'retry-dead', '/deliveries/retry-dead', () => deliveryIds, 1, PAGE_PX],
    // The overview: the ten oldest stuck claims and the first ten dead deliveries (a header
    // each), the counts of the two providers (a header and two rows), and above them the two
    // figures: the inbox's deliveries by provider (a header and the one provider's row, a card
    // of its seven figures on a phone).
    [
      'the overview',
      'overview',
      '/',
      () => [...receiptIds.slice(0, 10), ...deliveryIds.slice(0, 10)],
      7,
      PAGE_PX + FIGURES_PX,
    ],
  ])('%s', async (_title, name, path, expected, extraRows, pagePx) => {
    await page.goto(`${mounted.origin}${BASE}${path}`);
    // The first two screens: what reading the list looks like.
    await page.screenshot({
      path: join(SHOTS, `long-ids-${name}-${width}.png`),
      fullPage: true,
      clip: { x: 0, y: 0, width, height: 2 * height },
    });
    const got: Measured = await page.evaluate(MEASURE);
    // Every id whole: what an operator copies.
    expect(got.ids.map((i) => i.text).sort()).toEqual([...expected()].sort());
    expect(got.overflow).toBeLessThanOrEqual(0);
    // No id squeezed into a narrow column: at least MIN_ID_CHARS characters of its own font.
    expect(Math.min(...got.ids.map((i) => i.chars))).toBeGreaterThanOrEqual(MIN_ID_CHARS);
    // Each row a few lines (its id's and a few more), so the page is a few screens per 50 rows.
    expect(Math.max(...got.ids.map((i) => i.row))).toBeLessThanOrEqual(MAX_ROW_PX);
    expect(got.height).toBeLessThanOrEqual(pagePx + MAX_ROW_PX * got.ids.length);
    // Still a table to assistive technology: its rows are rows, whatever the layout.
    await expect(page.getByRole('row').count()).resolves.toBe(got.ids.length + extraRows);
  });
});
