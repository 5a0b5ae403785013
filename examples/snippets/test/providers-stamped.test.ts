/** docs/providers.md (the timestamped presets of the catalogue's growth): every `preset.key(x); // 'key'` comment is the key the preset really reads. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { HttpRequest } from '@webhook-idempotency/core';
import * as snippets from '../src/providers-stamped';
import { commentedKeys as keysIn } from './helpers/commented-keys';

const source = readFileSync(join(__dirname, '..', 'src', 'providers-stamped.ts'), 'utf8');

/** The keys the comments of a region of the snippets promise. */
const commentedKeys = (region: string) => keysIn(source, region);

const json = (value: unknown, headers: Record<string, string> = {}): HttpRequest => ({
  method: 'POST',
  url: '/webhook',
  headers: { 'content-type': 'application/json', ...headers },
  rawBody: Buffer.from(JSON.stringify(value)),
  body: undefined,
  native: {},
});

Object.assign(process.env, {
  WORKOS_WEBHOOK_SECRET: 'workos-secret',
  ELEVENLABS_WEBHOOK_SECRET: 'elevenlabs-secret',
  SANITY_WEBHOOK_SECRET: 'sanity-secret',
  MUX_WEBHOOK_SECRET: 'mux-secret',
  WEBFLOW_WEBHOOK_SECRET: 'webflow-secret',
  RECURLY_WEBHOOK_SECRET: 'recurly-secret',
  REVOLUT_WEBHOOK_SECRET: 'revolut-secret',
  PERSONA_WEBHOOK_SECRET: 'persona-secret',
});

const cases: Array<[region: string, run: () => Record<string, unknown>]> = [
  [
    'workos',
    () =>
      snippets.workosKeys(json({ id: 'event_01HZ4Y7QK9W2JXM3V5T8R6N0PB', event: 'user.created' })),
  ],
  [
    'elevenlabs',
    () =>
      snippets.elevenlabsKeys(
        json({
          type: 'post_call_transcription',
          event_timestamp: 1_796_112_000,
          data: { conversation_id: 'conv_01jxk1wb5rf8qzr3zd0qf0xq9a' },
        }),
      ),
  ],
  [
    'sanity',
    () =>
      snippets.sanityKeys(
        json(
          { _id: 'movie_123' },
          { 'sanity-transaction-id': 'tx_9X2kLm4p', 'sanity-document-id': 'movie_123' },
        ),
      ),
  ],
  [
    'mux',
    () =>
      snippets.muxKeys(
        json({ id: '3a56ac3d-33da-4366-855b-f592d898409d', type: 'video.asset.ready' }),
      ),
  ],
  [
    'webflow',
    () =>
      snippets.webflowKeys(
        json({ triggerType: 'form_submission', payload: { id: '6321a6f8a6bd2a5fd4a6b9f7' } }),
      ),
  ],
  [
    'recurly',
    () =>
      snippets.recurlyKeys(
        json({ id: 'rjxwmwedwqug', object_type: 'account', event_type: 'created' }),
      ),
  ],
  [
    'revolut',
    () =>
      snippets.revolutKeys(
        json({ event: 'ORDER_COMPLETED', order_id: '6516e61c-d279-a454-a837-bc52ce55ed49' }),
      ),
  ],
  [
    'persona',
    () =>
      snippets.personaKeys(
        json({
          data: {
            type: 'event',
            id: 'evt_ABC123xyz456',
            attributes: { name: 'inquiry.completed' },
          },
        }),
      ),
  ],
];

it.each(cases)('the %s snippet says the key the preset reads', (region, run) => {
  const keys = commentedKeys(region);
  expect(Object.keys(keys).length).toBeGreaterThan(0);
  expect(run()).toEqual(keys);
});
