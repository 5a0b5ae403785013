/**
 * @module The rule for every preset that answers its provider's challenge or handshake itself
 * (docs/providers.md): through every adapter, the answer goes out with `nosniff` and the
 * protocol's content-type, without the handler or a receipt, and that answer sent back as a
 * delivery is refused (401, or 400 by a framework's own body parser), with no claim and no handler even under `onMissingKey: 'passthrough'`.
 */
import type { ProviderPreset } from '@webhook-idempotency/core';
import type { Handshake } from '@webhook-idempotency/providers/testing';
import type { AdapterCase } from '../case';
import type { Harness } from '../harness';
import { batchFixtures, type PresetRequest, presetFixtures, requestOf } from '../presets';

/** One preset's challenge: how to ask it through the adapter, what it answers, how to replay that. */
interface Challenge {
  readonly name: string;
  /** The one-event preset fixture it belongs to (a batched preset's challenges run on every entry). */
  readonly fixture?: string;
  readonly preset: () => ProviderPreset;
  /** Asks it through the adapter; resolves with the response and the answer the provider expects. */
  ask(h: Harness): { readonly response: ReturnType<Harness['get']>; readonly answer: string };
  replay(answer: string): PresetRequest;
}

/** The query of a challenge GET, as the harness sends it to /hook. */
const queryOf = (url: string) => new URL(url).search.slice(1);

/** A challenge sent as a GET (Braintree's, Meta's verification): the GET of its URL, and its replay. */
const getChallenge = (
  name: string,
  preset: () => ProviderPreset,
  source: {
    request(): { url: string; answer: string; headers: Readonly<Record<string, string>> };
    replay(answer: string): PresetRequest;
  },
): Challenge => ({
  name,
  preset,
  ask: (h) => {
    const request = source.request();
    return { response: h.get(queryOf(request.url), request.headers), answer: request.answer };
  },
  replay: source.replay,
});

/** A handshake sent as a POST (Discord's PING, Graph's validation): the POST, and its replay. */
const postChallenge = (
  name: string,
  preset: () => ProviderPreset,
  source: { request(): Handshake; replay(answer: string): PresetRequest },
): Challenge => ({
  name,
  preset,
  ask: (h) => {
    const request = source.request();
    const { body, headers, path } = requestOf(request);
    return { response: h.post(undefined, body, { ...headers }, path), answer: request.answer };
  },
  replay: source.replay,
});

const challenges: Challenge[] = [
  ...presetFixtures.flatMap((fixture): Challenge[] => {
    const { handshake, challenge } = fixture;
    const found: Challenge[] = [];
    if (handshake)
      found.push(postChallenge(`${fixture.name} handshake`, fixture.preset, handshake));
    if (challenge)
      found.push(getChallenge(`${fixture.name} challenge GET`, fixture.preset, challenge));
    return found.map((one) => ({ ...one, fixture: fixture.name }));
  }),
  ...batchFixtures.flatMap((fixture): Challenge[] => {
    const { handshake, postHandshake } = fixture;
    const found: Challenge[] = [];
    if (handshake)
      found.push(getChallenge(`${fixture.name} verification GET`, fixture.preset, handshake));
    if (postHandshake)
      found.push(postChallenge(`${fixture.name} handshake`, fixture.preset, postHandshake));
    return found;
  }),
];

/** A JSON answer where the protocol wants JSON (Zoom, Discord); every echo of text is plain text. */
const CONTENT_TYPE = /^(text\/plain|application\/json); charset=utf-8$/;

function challengeCase(challenge: Challenge): AdapterCase {
  return {
    group: 'presets',
    anyStore: true,
    preset: challenge.fixture,
    name: `${challenge.name}: answered with nosniff, and the answer replayed as a delivery is refused with no claim, even with onMissingKey 'passthrough'`,
    async run(h) {
      await h.start({ preset: challenge.preset(), onMissingKey: 'passthrough' });
      const asked = challenge.ask(h);
      const res = await asked.response;
      expect(res.status).toBe(200);
      expect(res.body.toString()).toBe(asked.answer);
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
