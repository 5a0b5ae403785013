/**
 * @module ElevenLabs, a member of the timestamped-HMAC family (`ElevenLabs-Signature:
 * t=<unix>,v0=<hex>`) whose deliveries carry no id of their own.
 */
import type { HttpRequest } from '@webhook-idempotency/core';
import { canonicalFingerprint } from './fingerprint';
import { bodyField, idPart, isJsonObject, jsonBody } from './request-fields';
import type { TimedSecretOptions } from './secrets';
import { signatureList, stampDotBody, timestampedMember } from './timestamped-family';

/**
 * Options of {@link elevenlabs}: `secret`, the workspace webhook's HMAC secret, or several while
 * you replace the webhook; or `resolveSecret`, a lookup per request.
 *
 * `toleranceSeconds`: accepted distance between the signed `t` and now, in seconds. Defaults to
 * 1800 (the SDK's 30 minutes).
 */
export type ElevenLabsOptions = TimedSecretOptions<'secret'>;

/**
 * An ElevenLabs delivery as this preset reads it: `type` (the event name), `event_timestamp` and
 * `data` (its `conversation_id` for the post-call events). ElevenLabs' SDK publishes no types of
 * the webhook bodies.
 */
export interface ElevenLabsMinimalEvent {
  readonly type: string;
  readonly event_timestamp: number;
  readonly data: { readonly conversation_id?: string };
}

/** ElevenLabs' events: any name, each an {@link ElevenLabsMinimalEvent}. */
export type ElevenLabsMinimalEvents = Record<string, ElevenLabsMinimalEvent>;

/**
 * `type:conversation_id` for an event about one conversation; otherwise
 * `type:event_timestamp:digest`, the first 32 hex characters of the SHA-256 of the canonical JSON
 * of `data`. `undefined` without `type` or `data`.
 */
function eventKey(request: HttpRequest): string | undefined {
  const body = jsonBody(request);
  const type = idPart(body?.type);
  if (type === undefined || !isJsonObject(body?.data)) return undefined;
  const conversation = idPart(body.data.conversation_id);
  if (conversation !== undefined) return `${type}:${conversation}`;
  const stamp = idPart(body.event_timestamp);
  if (stamp === undefined) return undefined;
  return `${type}:${stamp}:${canonicalFingerprint(body.data).slice(0, 32)}`;
}

/**
 * ElevenLabs webhook preset (post-call transcription and audio, call initiation failures, speech
 * to text…) (docs/providers.md#elevenlabs).
 *
 * - **Key**: a fallback, as ElevenLabs sends no delivery id: `type:data.conversation_id`
 *   (`post_call_transcription:conv_…`), one per conversation and event; for an event naming no
 *   conversation, `type:event_timestamp:` and a digest of `data`.
 * - **Signature**: `ElevenLabs-Signature: t=<unix>,v0=<hex>`, v0 = HMAC-SHA256(secret,
 *   `${t}.${rawBody}`), constant time; `t` within `toleranceSeconds` of now, either way.
 * - **Retention**: 7 days. ElevenLabs documents a single dispatch per event (no retry schedule);
 *   a week covers a re-sent request.
 *
 * @example
 * const preset = providers.elevenlabs({ secret: process.env.ELEVENLABS_WEBHOOK_SECRET! });
 * preset.key(request); // 'post_call_transcription:conv_01jxk1wb5rf8qzr3zd0qf0xq9a'
 * @throws {ConfigError} naming `secret`, `resolveSecret`, `toleranceSeconds` or `clock` when invalid.
 * @see docs/providers.md#elevenlabs
 */
export const elevenlabs = /* @__PURE__ */ timestampedMember<
  ElevenLabsOptions,
  ElevenLabsMinimalEvents
>({
  provider: 'elevenlabs',
  secret: ['secret', 'the webhook HMAC secret'],
  toleranceSeconds: 1800,
  header: 'elevenlabs-signature',
  read: /* @__PURE__ */ signatureList(',', 't', 'v0', true),
  signed: stampDotBody,
  key: [eventKey, 'type and data.conversation_id (or event_timestamp) in the body'],
  retentionDays: 7,
  eventType: /* @__PURE__ */ bodyField('type'),
});
