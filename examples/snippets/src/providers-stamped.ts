/**
 * @module docs/providers.md, the sections of the timestamped-HMAC presets whose stamp is in
 * milliseconds or ISO-8601, or whose header lists several signatures (WorkOS…): each factory with
 * the key it reads. test/providers-stamped.test.ts checks every `preset.key(…) // '…'` comment
 * against the real key.
 */
import type { HttpRequest, ProviderPreset } from '@webhook-idempotency/core';
import * as providers from '@webhook-idempotency/providers';

type Key = ReturnType<ProviderPreset['key']>;

export function workosKeys(request: HttpRequest): Record<string, Key> {
  // #region workos
  const preset = providers.workos({ secret: process.env.WORKOS_WEBHOOK_SECRET! });
  preset.key(request); // 'event_01HZ4Y7QK9W2JXM3V5T8R6N0PB'
  // #endregion workos
  return { request: preset.key(request) };
}

export function elevenlabsKeys(request: HttpRequest): Record<string, Key> {
  // #region elevenlabs
  const preset = providers.elevenlabs({ secret: process.env.ELEVENLABS_WEBHOOK_SECRET! });
  preset.key(request); // 'post_call_transcription:conv_01jxk1wb5rf8qzr3zd0qf0xq9a' (type:data.conversation_id)
  // #endregion elevenlabs
  return { request: preset.key(request) };
}

export function sanityKeys(request: HttpRequest): Record<string, Key> {
  // #region sanity
  const preset = providers.sanity({ secret: process.env.SANITY_WEBHOOK_SECRET! });
  preset.key(request); // 'tx_9X2kLm4p:movie_123' (sanity-transaction-id:sanity-document-id)
  // #endregion sanity
  return { request: preset.key(request) };
}

export function muxKeys(request: HttpRequest): Record<string, Key> {
  // #region mux
  const preset = providers.mux({ secret: process.env.MUX_WEBHOOK_SECRET! });
  preset.key(request); // '3a56ac3d-33da-4366-855b-f592d898409d'
  // #endregion mux
  return { request: preset.key(request) };
}

export function webflowKeys(request: HttpRequest): Record<string, Key> {
  // #region webflow
  const preset = providers.webflow({ secret: process.env.WEBFLOW_WEBHOOK_SECRET! });
  preset.key(request); // 'form_submission:6321a6f8a6bd2a5fd4a6b9f7' (triggerType:payload.id)
  // #endregion webflow
  return { request: preset.key(request) };
}

export function revolutKeys(request: HttpRequest): Record<string, Key> {
  // #region revolut
  const preset = providers.revolut({ signingSecret: process.env.REVOLUT_WEBHOOK_SECRET! });
  preset.key(request); // 'ORDER_COMPLETED:6516e61c-d279-a454-a837-bc52ce55ed49' (event:order_id)
  // #endregion revolut
  return { request: preset.key(request) };
}

export function personaKeys(request: HttpRequest): Record<string, Key> {
  // #region persona
  const preset = providers.persona({ secret: process.env.PERSONA_WEBHOOK_SECRET! });
  preset.key(request); // 'evt_ABC123xyz456' (data.id)
  // #endregion persona
  return { request: preset.key(request) };
}

export function recurlyKeys(request: HttpRequest): Record<string, Key> {
  // #region recurly
  const preset = providers.recurly({ secret: process.env.RECURLY_WEBHOOK_SECRET! });
  preset.key(request); // 'rjxwmwedwqug' (the notification id)
  // #endregion recurly
  return { request: preset.key(request) };
}
