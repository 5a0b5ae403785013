/** @module Every provider preset through the adapter: a signed delivery, its redelivery, a forged copy, and the preset's handshake. */
import type { AdapterCase } from '../case';
import type { Harness } from '../harness';
import { type PresetFixture, type PresetRequest, presetFixtures } from '../presets';
import { morePresetFixtures } from '../presets-more';

const send = (h: Harness, request: PresetRequest) =>
  h.post(undefined, request.body, { ...request.headers }, request.path);

function deliveryCase(fixture: PresetFixture): AdapterCase {
  return {
    group: 'presets',
    anyStore: true,
    name: `${fixture.name}: a forged copy is refused with no receipt; the signed delivery runs the handler once and its redelivery is replayed`,
    async run(h) {
      const preset = fixture.preset();
      await h.start({ preset });
      const key = { provider: preset.provider, externalId: fixture.externalId };

      const forged = await send(h, fixture.forged());
      expect(forged.status).toBe(fixture.forgedStatus ?? 401);
      expect(h.calls()).toBe(0);
      expect(await h.guard.find(key)).toBeNull();

      const delivery = fixture.delivery();
      const first = await send(h, delivery);
      expect(first.status).toBe(200);
      expect(first.headers['idempotent-replayed']).toBeUndefined();
      expect(await h.guard.find(key)).toMatchObject({ status: 'completed', attempts: 1 });

      const again = await send(h, delivery);
      expect(again.status).toBe(200);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(Buffer.compare(again.body, first.body)).toBe(0);
      expect(h.calls()).toBe(1);
    },
  };
}

function handshakeCase(fixture: PresetFixture): AdapterCase | undefined {
  const { handshake } = fixture;
  if (!handshake) return undefined;
  return {
    group: 'presets',
    anyStore: true,
    name: `${fixture.name}: the verified handshake is answered by the preset, without the handler or a receipt; a forged one is refused`,
    async run(h) {
      const preset = fixture.preset();
      await h.start({ preset });
      const key = { provider: preset.provider, externalId: handshake.externalId };
      const forged = await send(h, handshake.forged());
      expect(forged.status).toBe(fixture.forgedStatus ?? 401);
      expect(forged.body.toString()).not.toBe(handshake.answer);
      const res = await send(h, handshake.request());
      expect(res.status).toBe(200);
      expect(res.body.toString()).toBe(handshake.answer);
      expect(h.calls()).toBe(0);
      expect(await h.guard.find(key)).toBeNull();
    },
  };
}

export const presetCases: AdapterCase[] = [...presetFixtures, ...morePresetFixtures].flatMap(
  (fixture) => {
    const handshake = handshakeCase(fixture);
    return handshake ? [deliveryCase(fixture), handshake] : [deliveryCase(fixture)];
  },
);
