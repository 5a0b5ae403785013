/**
 * @module The shapes of the preset fixtures the HTTP suite sends through every adapter and the
 * inbox endpoint: each preset with the deliveries the test kit
 * (`@webhook-idempotency/providers/testing`) signs for it, so the suite proves that every signer's
 * delivery is accepted, its retry replayed and its forged copy refused.
 */
import type { HttpRequest, ProviderPreset } from '@webhook-idempotency/core';
import type { Challenge, Delivery, Handshake } from '@webhook-idempotency/providers/testing';
import type { Answer } from '../types';

/** Where the suite's apps are called, as the signers sign it (the providers that sign the URL). */
export const HOOK_URL = 'https://example.com/hook';

/** A request to POST: its body and headers (content-type is JSON unless set here). */
export interface PresetRequest {
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
  /** Where to POST it when not plain /hook: /hook with a query the provider signs, or a path. */
  readonly path?: string;
}

/** A signed delivery as the harness sends it. */
export function requestOf(delivery: Delivery | Handshake): PresetRequest {
  return {
    body: delivery.body.toString('utf8'),
    headers: { ...delivery.headers },
    path: delivery.path,
  };
}

/** A signed delivery as a preset reads it (its items, its key): the request the engine builds from it. */
export function presetRequestOf(delivery: Delivery): HttpRequest {
  return {
    method: delivery.method,
    url: delivery.path,
    headers: delivery.headers,
    rawBody: delivery.body,
    body: undefined,
    native: {},
  };
}

/** One preset and the deliveries the suite sends it. */
export interface PresetFixture {
  /** Shown in test names. */
  readonly name: string;
  readonly preset: () => ProviderPreset;
  /** The receipt's external id the genuine delivery is stored under. */
  readonly externalId: string;
  /** A genuine delivery, signed now, by the test kit: its `retry()` is the provider's redelivery, `forged()` its forged copy. */
  delivery(): Delivery;
  /** The status a forged delivery gets: 401 unless the protocol answers otherwise. */
  readonly forgedStatus?: number;
  /** What the handler answers, where the protocol shapes it (Payme's JSON-RPC result); JSON naming the call otherwise. */
  readonly answer?: Answer;
  /** Whether the preset refuses a delivery signed an hour ago (its provider signs a time it checks). */
  readonly timed: boolean;
  /**
   * A verified handshake the preset answers itself (its `answer` the exact body), and the
   * external id a receipt of it would have (there must be none).
   */
  readonly handshake?: {
    request(): Handshake;
    readonly externalId: string;
    /** The answer sent back as a delivery, in the place a delivery carries its signature or payload. */
    replay(answer: string): PresetRequest;
  };
  /** A challenge sent as a GET (Braintree's `bt_challenge`): the GET with its exact answer, and its replay. */
  readonly challenge?: {
    request(): Challenge;
    /** The answer sent back as a delivery, in the place a delivery carries its signature or payload. */
    replay(answer: string): PresetRequest;
  };
}

/** One batched preset and the requests the suite sends it. */
export interface BatchFixture {
  /** Shown in test names. */
  readonly name: string;
  readonly preset: () => ProviderPreset;
  /** The receipts' external ids of the genuine batch's items, in order. */
  readonly itemIds: readonly string[];
  /** The external id of the item only the re-batch carries. */
  readonly newItemId: string;
  /** The genuine batch, signed now by the test kit (`retry()` its redelivery, `forged()` its forged copy). */
  delivery(): Delivery;
  /** The provider's retry in another batch: the last item again (a retry's bookkeeping changed), and a new one. */
  rebatched(): Delivery;
  /** What the handler answers once every item is done: the shape the provider requires. */
  readonly answer: Answer;
  /** The status of the forged batch's refusal, where the provider documents one other than 401. */
  readonly forgedStatus?: number;
  /**
   * A verified handshake sent as a POST that the preset answers itself (Microsoft Graph's
   * `validationToken`, Event Grid's validation event): its exact answer, and that answer sent back
   * as a delivery.
   */
  readonly postHandshake?: {
    request(): Handshake;
    replay(answer: string): PresetRequest;
  };
  /** A verification GET the preset answers (its query and exact answer), its forged copy and that one's status. */
  readonly handshake?: {
    request(): Challenge & { forged(): Challenge };
    readonly forgedStatus: number;
    /** The answer sent back as a delivery, in the place a delivery carries its signature or payload. */
    replay(answer: string): PresetRequest;
  };
}
