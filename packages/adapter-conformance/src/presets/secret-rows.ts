/**
 * @module The fixtures of the presets that take one secret, as rows: a provider's preset and its
 * test-kit signer are found by the provider's name and given the same secret under the option the
 * provider names it (or the same credentials, where it takes several), so a row holds only what is
 * the provider's own (its genuine delivery, the receipt's external id, an option of the preset's,
 * the answer it expects).
 */
import type { ProviderPreset } from '@webhook-idempotency/core';
import * as providers from '@webhook-idempotency/providers';
import * as signers from '@webhook-idempotency/providers/testing';
import type { Delivery, Payload } from '@webhook-idempotency/providers/testing';
import type { Answer } from '../types';
import { HOOK_URL, type PresetFixture } from './fixture';

/** A provider with a preset and a signer of the same name. */
type Signed = keyof typeof providers & keyof typeof signers;

/** One provider's row: what the suite sends it and what it stores. */
export interface SecretRow {
  /** The receipt's external id of the genuine delivery. */
  readonly id: string;
  /** The genuine delivery: the payload, and the signer's options of it (an id a header carries). */
  readonly event: readonly [payload: Payload, delivery?: object];
  /** The option holding the secret, where it is not `secret`. */
  readonly option?: string;
  /** The secret, where the provider gives it a shape of its own (`whsec_…`). */
  readonly secret?: string;
  /** The credentials in place of one secret, where the provider takes several (HTTP Basic). */
  readonly credentials?: object;
  /** The preset's other options (a timestamp check the preset leaves off by default, a bot id). */
  readonly preset?: object;
  /** The signer's other options (the shop a delivery comes from). */
  readonly signer?: object;
  /** What the test name says after the provider's. */
  readonly note?: string;
  /** The handler's answer, where the provider expects one of its own. */
  readonly answer?: Answer;
}

/**
 * The preset factory and signer of `name`, as the rows call them: options in. (The suite loads the
 * whole catalogue and kit anyway, so reading them by name costs no bundle anything.)
 */
function pairOf(name: Signed) {
  // biome-ignore lint/performance/noDynamicNamespaceImportAccess: a row names its provider
  const preset = providers[name] as unknown as (options: object) => ProviderPreset;
  // biome-ignore lint/performance/noDynamicNamespaceImportAccess: a row names its provider
  const signer = signers[name] as unknown as (options: object) => {
    event(payload: Payload, delivery?: object): Delivery;
  };
  return { preset, signer };
}

/** The fixtures of `rows`; `timed`: whether their providers sign a time the preset checks. */
export function secretFixtures(
  rows: Partial<Record<Signed, SecretRow>>,
  timed: boolean,
): PresetFixture[] {
  return Object.entries(rows).map(([key, row]) => {
    const name = key as Signed;
    const { preset, signer } = pairOf(name);
    const secret = row.credentials ?? {
      [row.option ?? 'secret']: row.secret ?? `conformance ${name} secret`,
    };
    const [payload, delivery] = row.event;
    return {
      name: row.note === undefined ? name : `${name} (${row.note})`,
      preset: () => preset({ ...secret, ...row.preset }),
      externalId: row.id,
      ...(row.answer ? { answer: row.answer } : {}),
      timed,
      delivery: () => signer({ ...secret, ...row.signer, url: HOOK_URL }).event(payload, delivery),
    };
  });
}
