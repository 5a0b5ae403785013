/**
 * @module Every provider preset through the adapter, with the deliveries the test kit signs: a
 * signed delivery, the provider's retry of it, a forged copy, one signed an hour ago (one app for
 * the four), and the preset's handshake.
 */
import { expectReplay, handshakeCase } from './expect';
import type { AdapterCase } from '../case';
import type { Harness } from '../harness';
import { type PresetFixture, type PresetRequest, presetFixtures, requestOf } from '../presets';

const send = (h: Harness, request: PresetRequest) =>
  h.post(undefined, request.body, { ...request.headers }, request.path);
const HOUR = 3_600_000;

function deliveryCase(fixture: PresetFixture): AdapterCase {
  const stale = fixture.timed ? ' and a copy signed an hour ago are' : ' is';
  return {
    group: 'presets',
    anyStore: true,
    preset: fixture.name,
    name: `${fixture.name}: a forged copy${stale} refused with no receipt; the signer's delivery runs the handler once and the provider's retry of it is replayed`,
    async run(h) {
      const preset = fixture.preset();
      const { answer } = fixture;
      await h.start({ preset }, answer ? () => answer : undefined);
      const key = { provider: preset.provider, externalId: fixture.externalId };
      const refused = fixture.forgedStatus ?? 401;

      const delivery = fixture.delivery();
      const forged = await send(h, requestOf(delivery.forged()));
      expect(forged.status).toBe(refused);
      if (fixture.timed) {
        const old = await send(h, requestOf(delivery.retry({ at: Date.now() - HOUR })));
        expect(old.status).toBe(refused);
      }
      expect(h.calls()).toBe(0);
      expect(await h.guard.find(key)).toBeNull();

      const first = await send(h, requestOf(delivery));
      expect(first.status).toBe(200);
      expect(first.headers['idempotent-replayed']).toBeUndefined();
      expect(await h.guard.find(key)).toMatchObject({ status: 'completed', attempts: 1 });

      expectReplay(await send(h, requestOf(delivery.retry())), first);
      expect(h.calls()).toBe(1);
    },
  };
}

function presetHandshakeCase(fixture: PresetFixture): AdapterCase | undefined {
  const { handshake } = fixture;
  if (!handshake) return undefined;
  const name = `${fixture.name}: the verified handshake is answered by the preset, without the handler or a receipt; a forged one is refused`;
  const found = handshakeCase('presets', name, fixture.preset, (h) => {
    const request = handshake.request();
    return {
      forged: () => send(h, requestOf(request.forged())),
      genuine: () => send(h, requestOf(request)),
      answer: request.answer,
      forgedStatus: fixture.forgedStatus ?? 401,
      externalId: handshake.externalId,
    };
  });
  return { ...found, preset: fixture.name };
}

export const presetCases: AdapterCase[] = presetFixtures.flatMap((fixture) =>
  [deliveryCase(fixture), presetHandshakeCase(fixture)].filter(
    (found): found is AdapterCase => found !== undefined,
  ),
);
