/**
 * @module The rule for every preset that answers its provider's challenge or handshake itself
 * (docs/providers.md): through every adapter, the answer goes out with `nosniff` and the
 * protocol's content-type, without the handler or a receipt, and that answer sent back as a
 * delivery is refused (401, or 400 by a framework's own body parser), with no claim and no handler even under `onMissingKey: 'passthrough'`.
 */
import type { ProviderPreset } from '@webhook-idempotency/core';
import { batchFixtures } from '../batch-presets';
import type { AdapterCase } from '../case';
import type { Harness } from '../harness';
import type { PresetRequest } from '../preset-fixture';
import { presetFixtures } from '../presets';
import { morePresetFixtures } from '../presets-more';

/** One preset's challenge: how to ask it through the adapter, what it answers, how to replay that. */
interface Challenge {
  readonly name: string;
  readonly preset: () => ProviderPreset;
  ask(h: Harness): ReturnType<Harness['get']>;
  readonly answer: string;
  replay(answer: string): PresetRequest;
}

const challenges: Challenge[] = [
  ...[...presetFixtures, ...morePresetFixtures].flatMap((fixture): Challenge[] => {
    const { handshake, challenge } = fixture;
    const found: Challenge[] = [];
    if (handshake)
      found.push({
        name: `${fixture.name} handshake`,
        preset: fixture.preset,
        ask: (h) => {
          const request = handshake.request();
          return h.post(undefined, request.body, { ...request.headers }, request.path);
        },
        answer: handshake.answer,
        replay: handshake.replay,
      });
    if (challenge)
      found.push({
        name: `${fixture.name} challenge GET`,
        preset: fixture.preset,
        ask: (h) => h.get(challenge.query),
        answer: challenge.answer,
        replay: challenge.replay,
      });
    return found;
  }),
  ...batchFixtures.flatMap((fixture): Challenge[] => {
    const { handshake } = fixture;
    if (!handshake) return [];
    return [
      {
        name: `${fixture.name} verification GET`,
        preset: fixture.preset,
        ask: (h) => h.get(handshake.query),
        answer: handshake.answer,
        replay: handshake.replay,
      },
    ];
  }),
];

/** A JSON answer where the protocol wants JSON (Zoom, Discord); every echo of text is plain text. */
const CONTENT_TYPE = /^(text\/plain|application\/json); charset=utf-8$/;

function challengeCase(challenge: Challenge): AdapterCase {
  return {
    group: 'presets',
    anyStore: true,
    name: `${challenge.name}: answered with nosniff, and the answer replayed as a delivery is refused with no claim, even with onMissingKey 'passthrough'`,
    async run(h) {
      await h.start({ preset: challenge.preset(), onMissingKey: 'passthrough' });
      const res = await challenge.ask(h);
      expect(res.status).toBe(200);
      expect(res.body.toString()).toBe(challenge.answer);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['content-type']).toMatch(CONTENT_TYPE);

      const replay = challenge.replay(res.body.toString());
      const replayed = await h.post(undefined, replay.body, { ...replay.headers }, replay.path);
      // 401 from verify; 400 where the framework's own body parser refused the bytes first
      // (express.json() refuses Meta's bare-number challenge as JSON).
      expect([400, 401]).toContain(replayed.status);
      expect(h.calls()).toBe(0);
      expect(h.claims()).toBe(0);
    },
  };
}

export const challengeCases: AdapterCase[] = challenges.map(challengeCase);
