/**
 * @module Discord interactions preset: the interaction `id` as the key, `X-Signature-Ed25519`
 * verified with the application's public key, PING answered with a PONG before any claim.
 */
import { createPublicKey, type KeyObject } from 'node:crypto';
import { ConfigError } from '@webhook-idempotency/core';
import type { PresetFactory } from './events';
import { type KeyedRow, keyedPreset } from './keyed-preset';
import { timedMember } from './keyring-members';
import { idPart, jsonBody } from './request-fields';
import { handshakeJson } from './response';
import type { TimedSecretOptions } from './secrets';
import { stampedSignatureMatch } from './stamped-signature';

/**
 * Options of {@link discord}: `publicKey`, the application's public key, 64 hex characters
 * (Developer Portal, General Information), or several (one endpoint for several applications);
 * or `resolveSecret`, a lookup per request (one application per customer).
 *
 * `toleranceSeconds`: accepted distance between `X-Signature-Timestamp` and now, in seconds.
 * Defaults to 300. Discord expects an answer within 3 seconds, so an older signed request is a
 * replay.
 */
export type DiscordOptions = TimedSecretOptions<'publicKey'>;

/** Discord's interaction types by the names its documentation gives them, as `eventType` reads them. */
export const DISCORD_INTERACTION_TYPES = {
  1: 'PING',
  2: 'APPLICATION_COMMAND',
  3: 'MESSAGE_COMPONENT',
  4: 'APPLICATION_COMMAND_AUTOCOMPLETE',
  5: 'MODAL_SUBMIT',
} as const;

/** An interaction as this preset reads it: `id` (the key) and `type` (the event name, by {@link DISCORD_INTERACTION_TYPES}). */
export interface DiscordMinimalInteraction {
  readonly id: string;
  readonly type: number;
}

/** Discord's interaction types, each a {@link DiscordMinimalInteraction}. */
export type DiscordMinimalEvents = Record<
  (typeof DISCORD_INTERACTION_TYPES)[keyof typeof DISCORD_INTERACTION_TYPES],
  DiscordMinimalInteraction
>;

/** DER prefix of an Ed25519 SubjectPublicKeyInfo, before the 32 raw key bytes (RFC 8410). */
const ED25519_SPKI = Buffer.from('302a300506032b6570032100', 'hex');
const HEX_KEY = /^[0-9a-fA-F]{64}$/;
const HEX_SIGNATURE = /^[0-9a-fA-F]{128}$/;
/** Interaction type 1 (PING) and response type 1 (PONG). */
const PING = 1;
const PONG = '{"type":1}';

/** The Ed25519 key of the application's public key, given as 64 hex characters. */
function publicKeyOf(hex: string): KeyObject {
  if (!HEX_KEY.test(hex))
    throw new ConfigError('publicKey', 'discord() needs the public key as 64 hex characters');
  return createPublicKey({
    key: Buffer.concat([ED25519_SPKI, Buffer.from(hex, 'hex')]),
    format: 'der',
    type: 'spki',
  });
}

/**
 * Discord interactions preset (slash commands, buttons, modals sent to an Interactions Endpoint
 * URL).
 *
 * - **Key**: the interaction's `id` (a snowflake) from the body. Discord does not retry an
 *   interaction; the receipt stops a replayed request, a proxy's retry or a client that sent
 *   twice from acting twice.
 * - **Handshake**: a verified PING (`"type": 1`) is answered `{"type":1}` by the preset, with no
 *   receipt and without your handler, as Discord requires when you save the endpoint URL and
 *   at random later to check it.
 * - **Signature**: `X-Signature-Ed25519` is the hex Ed25519 signature of
 *   `X-Signature-Timestamp` followed by the raw body, checked with the application's public key;
 *   the timestamp must be within `toleranceSeconds`. A failure is a 401, which Discord's own
 *   checks of the endpoint expect.
 * - **Retention**: 1 day: an interaction token is valid for 15 minutes, and nothing retries.
 *
 * @example
 * const preset = providers.discord({ publicKey: process.env.DISCORD_PUBLIC_KEY! });
 * @throws {ConfigError} naming `publicKey`, `toleranceSeconds` or `clock` when invalid.
 * @see docs/providers.md#discord-interactions
 */
export const discord: PresetFactory<DiscordOptions, DiscordMinimalEvents> =
  /* @__PURE__ */ timedMember<DiscordOptions, KeyObject, KeyedRow<KeyObject>>({
    provider: 'discord',
    secret: ['publicKey', 'the application public key'],
    toleranceSeconds: 300,
    toKey: publicKeyOf,
    family: keyedPreset,
    row: (_, { now, tolerance }) => ({
      keyDescription: 'interaction id in the body',
      needsRawBody: true,
      retentionDays: 1,
      id(request) {
        return idPart(jsonBody(request)?.id);
      },
      handshake(request) {
        if (jsonBody(request)?.type !== PING) return undefined;
        return handshakeJson(200, PONG);
      },
      signedWith: stampedSignatureMatch({
        header: 'x-signature-ed25519',
        stampHeader: 'x-signature-timestamp',
        encoding: 'hex',
        pattern: HEX_SIGNATURE,
        algorithm: null,
        now,
        tolerance,
      }),
      eventType: (request) => {
        const type = jsonBody(request)?.type;
        return typeof type === 'number' && type in DISCORD_INTERACTION_TYPES
          ? DISCORD_INTERACTION_TYPES[type as keyof typeof DISCORD_INTERACTION_TYPES]
          : undefined;
      },
    }),
  });
