/**
 * The test kit against the presets themselves, on every fixture of the HTTP suite (which sends
 * the same deliveries through every adapter and the inbox endpoint): the signer's delivery
 * verifies and keys as the suite expects, its retry verifies under the same key and fingerprint,
 * its forged copy is refused, a delivery signed an hour ago is refused exactly where the provider
 * signs a time the preset checks; handshakes and challenges carry the answer the preset gives.
 * It lives beside the fixtures: the presets' package cannot depend on the suite that runs them
 * (packages/providers/test/testing/kit.test.ts has the rest of the kit's tests).
 */
import type { HttpRequest, ProviderPreset } from '@webhook-idempotency/core';
import type * as signers from '@webhook-idempotency/providers/testing';
import { batchFixtures, presetFixtures } from '../src/presets';

/** The neutral request an adapter builds from a delivery or challenge. */
const asRequest = (delivery: signers.Sendable): HttpRequest => ({
  method: delivery.method,
  url: delivery.path,
  headers: { ...delivery.headers },
  rawBody: delivery.body,
  body: undefined,
  native: {},
});
const verifies = async (preset: ProviderPreset, delivery: signers.Sendable) =>
  Boolean(await preset.verify?.(asRequest(delivery)));
const HOUR_AGO = () => Date.now() - 3_600_000;

describe.each(presetFixtures.map((fixture) => [fixture.name, fixture] as const))(
  '%s',
  (_name, fixture) => {
    const preset = fixture.preset();

    it('the delivery verifies and keys as the suite expects; the forged copy is refused', async () => {
      const delivery = fixture.delivery();
      expect(await verifies(preset, delivery)).toBe(true);
      expect(preset.key(asRequest(delivery))).toBe(fixture.externalId);
      expect(await verifies(preset, delivery.forged())).toBe(false);
      expect(
        delivery.forged().body.equals(delivery.body) ||
          delivery.forged().headers !== delivery.headers,
      ).toBe(true);
    });

    it('the retry verifies under the same key and fingerprint', async () => {
      const delivery = fixture.delivery();
      const retry = delivery.retry();
      expect(await verifies(preset, retry)).toBe(true);
      expect(preset.key(asRequest(retry))).toBe(fixture.externalId);
      if (preset.fingerprint)
        expect(preset.fingerprint(asRequest(retry))).toBe(preset.fingerprint(asRequest(delivery)));
      else expect(retry.body.equals(delivery.body)).toBe(true);
    });

    it(`a delivery signed an hour ago is ${fixture.timed ? 'refused' : 'accepted (nothing timed is checked)'}`, async () => {
      expect(await verifies(preset, fixture.delivery().retry({ at: HOUR_AGO() }))).toBe(
        !fixture.timed,
      );
    });

    if (fixture.handshake)
      it("the handshake verifies and its answer is the preset's; its forged copy is refused", async () => {
        const handshake = fixture.handshake!.request();
        // One request, verified then answered, as the engine does: a preset given several
        // secrets answers under the one that verified this request.
        const request = asRequest(handshake);
        expect(await preset.verify?.(request)).toBe(true);
        expect(preset.handshake?.(request)?.body.toString()).toBe(handshake.answer);
        expect(await verifies(preset, handshake.forged())).toBe(false);
      });

    if (fixture.challenge)
      it("the challenge GET's answer is the preset's", () => {
        const challenge = fixture.challenge!.request();
        expect(challenge.method).toBe('GET');
        expect(preset.challenge?.(asRequest(challenge))?.body.toString()).toBe(challenge.answer);
      });
  },
);

describe.each(batchFixtures.map((fixture) => [fixture.name, fixture] as const))(
  '%s batch',
  (_name, fixture) => {
    const preset = fixture.preset();

    it('the batch and its retry verify with the same items and fingerprints; the forged copy is refused', async () => {
      const batch = fixture.delivery();
      const retry = batch.retry();
      expect(await verifies(preset, batch)).toBe(true);
      expect(await verifies(preset, retry)).toBe(true);
      expect(await verifies(preset, batch.forged())).toBe(false);
      const items = (d: signers.Delivery) =>
        preset.items!(asRequest(d))!.map(({ key, fingerprint }) => [key, fingerprint]);
      expect(items(batch).map(([key]) => key)).toEqual(fixture.itemIds);
      expect(items(retry)).toEqual(items(batch));
    });

    if (fixture.handshake)
      it("the verification GET's answer is the preset's; its forged copy is answered 403", () => {
        const challenge = fixture.handshake!.request();
        expect(preset.challenge?.(asRequest(challenge))?.body.toString()).toBe(challenge.answer);
        expect(preset.challenge?.(asRequest(challenge.forged()))?.status).toBe(
          fixture.handshake!.forgedStatus,
        );
      });
  },
);
