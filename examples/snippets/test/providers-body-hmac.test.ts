/** docs/providers.md (raw-body HMAC presets): each snippet's commented key is what the preset reads. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as snippets from '../src/providers-body-hmac';
import { readRegion } from './helpers/check-docs';
import { jsonRequest } from './helpers/requests';

const source = readFileSync(join(__dirname, '..', 'src', 'providers-body-hmac.ts'), 'utf8');

/** The value the region's comment says its key line gives: `// 'key'` or `// ['a', 'b']`. */
function commented(region: string): unknown {
  const match = /\/\/ (\[[^\]]*\]|'[^']*')/.exec(readRegion(source, region));
  return match ? JSON.parse(match[1]!.replaceAll("'", '"')) : undefined;
}

const json = jsonRequest;

Object.assign(process.env, {
  LINE_CHANNEL_SECRET: 'line-channel-secret',
  NOTION_VERIFICATION_TOKEN: 'secret_notion',
  WOOCOMMERCE_WEBHOOK_SECRET: 'woo-secret',
  GOCARDLESS_WEBHOOK_SECRET: 'gocardless-endpoint-secret',
  VIBER_AUTH_TOKEN: 'viber-auth-token',
});

const cases: Array<[region: string, run: () => unknown]> = [
  [
    'line',
    () =>
      snippets.lineKeys(
        json({
          destination: 'U1',
          events: [{ type: 'follow', webhookEventId: '01FZ74A0TDDPYRVKNK77XKC3ZR' }],
        }),
      ),
  ],
  [
    'notion',
    () =>
      snippets.notionKeys(
        json({ id: '367cba44-b6f3-4c92-81e7-6a2e9659efd4', type: 'page.created' }),
      ),
  ],
  [
    'woocommerce',
    () =>
      snippets.woocommerceKey(
        json({ id: 727, status: 'processing' }, { 'x-wc-webhook-topic': 'order.updated' }),
      ),
  ],
  [
    'gocardless',
    () =>
      snippets.gocardlessKeys(
        json({
          events: [
            { id: 'EV0001', resource_type: 'payments', action: 'confirmed' },
            { id: 'EV0002', resource_type: 'mandates', action: 'active' },
          ],
          meta: { webhook_id: 'WB0001' },
        }),
      ),
  ],
  [
    'viber',
    () =>
      // Raw text: the 64-bit message_token is more than a JavaScript number holds.
      snippets.viberKey({
        ...jsonRequest({}),
        rawBody: Buffer.from(
          '{"event":"message","message_token":5741311803571721087,"sender":{"id":"01234567890A="}}',
        ),
      }),
  ],
];

it.each(cases)('%s: the key in the comment is the key the preset reads', (region, run) => {
  const expected = commented(region);
  expect(expected).toBeDefined();
  expect(run()).toEqual(expected);
});
