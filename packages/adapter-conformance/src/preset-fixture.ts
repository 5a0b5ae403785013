/** @module The shapes of the preset fixtures the HTTP suite sends through every adapter. */
import type { ProviderPreset } from '@webhook-idempotency/core';

/** A request to POST to /hook: its body and headers (content-type is JSON unless set here). */
export interface PresetRequest {
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
  /** Where to POST it when not plain /hook: /hook with a query the provider signs. */
  readonly path?: string;
}

/** One preset and the deliveries the suite sends it. */
export interface PresetFixture {
  /** Shown in test names. */
  readonly name: string;
  readonly preset: () => ProviderPreset;
  /** The receipt's external id the genuine delivery is stored under. */
  readonly externalId: string;
  /** A genuine delivery, signed now (a redelivery is the same request again). */
  delivery(): PresetRequest;
  /** The same delivery with its authentication forged (signed with another secret). */
  forged(): PresetRequest;
  /** The status a forged delivery gets: 401 unless the protocol answers otherwise. */
  readonly forgedStatus?: number;
  /**
   * A verified handshake the preset answers itself, the exact body it answers with, the same
   * handshake forged, and the external id a receipt of it would have (there must be none).
   */
  readonly handshake?: {
    request(): PresetRequest;
    forged(): PresetRequest;
    readonly answer: string;
    readonly externalId: string;
    /** The answer sent back as a delivery, in the place a delivery carries its signature or payload. */
    replay(answer: string): PresetRequest;
  };
  /** A challenge sent as a GET (Braintree's `bt_challenge`): its query, the exact answer, and its replay. */
  readonly challenge?: {
    readonly query: string;
    readonly answer: string;
    /** The answer sent back as a delivery, in the place a delivery carries its signature or payload. */
    replay(answer: string): PresetRequest;
  };
}
