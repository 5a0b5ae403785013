/** @module Telegram Bot API preset: `botId:update_id` as the key, the secret-token header as the check. */
import type { HttpRequest } from '@webhook-idempotency/core';
import { ConfigError } from '@webhook-idempotency/core';
import type { TypedPreset } from './events';
import { keyedPreset } from './keyed-preset';
import { requireOptions } from './options';
import { tokenHeaderMatch } from './token-header';
import { jsonBody } from './request-fields';
import { keyring, type SecretOptions } from './secrets';
import { secretDigest } from './signature';

/**
 * Options of {@link telegram}: the bot's id, and `secretToken`, the `secret_token` given to
 * setWebhook (1–256 characters of `A-Z a-z 0-9 _ -`), or several while you change it; or
 * `resolveSecret`, a lookup per request.
 */
export type TelegramOptions = SecretOptions<'secretToken', string> & TelegramBot;

/** The bot of {@link telegram}. */
export interface TelegramBot {
  /**
   * The bot's numeric id: the digits before the colon in its token (`123456789` of
   * `123456789:AA…`). Never pass the whole token, which is a credential. Required.
   */
  botId: string | number;
}

/**
 * A Telegram update as this preset reads it: `update_id` (the key) and the one field beside it
 * that names its kind (`message`, `callback_query`…), the event name. Telegram publishes no
 * TypeScript types of its own.
 */
export interface TelegramMinimalUpdate {
  readonly update_id: number;
}

/** Telegram's update kinds: any name, each a {@link TelegramMinimalUpdate}. */
export type TelegramMinimalEvents = Record<string, TelegramMinimalUpdate>;

/** The kind of an update: its one field other than `update_id`. */
function updateKind(request: HttpRequest): string | undefined {
  const body = jsonBody(request);
  if (body === undefined) return undefined;
  const kinds = Object.keys(body).filter((name) => name !== 'update_id');
  return kinds.length === 1 ? kinds[0] : undefined;
}

const SECRET_TOKEN = /^[A-Za-z0-9_-]{1,256}$/;
const BOT_ID = /^\d+$/;

/**
 * Telegram webhook preset (docs/providers.md#telegram).
 *
 * - **Key**: `botId:update_id` (`123456789:874512345`), provider `telegram`. `update_id` is only
 *   unique per bot, so the bot is part of the key; it goes in the external id rather than the
 *   provider name so that every bot's receipts share one provider for monitoring and purging.
 *   A numeric `update_id` becomes its decimal string.
 * - **Pass-through**: none.
 * - **Auth**: `X-Telegram-Bot-Api-Secret-Token` must equal `secretToken`, compared in constant time
 *   (hashed first, so its length does not leak). Telegram does not sign the body.
 * - **Retention**: 7 days. Telegram keeps undelivered updates for at most 24 hours; 48 hours to
 *   7 days is the recommended range, and ids may restart at a random value after a quiet week.
 *
 * @example
 * import * as providers from '@webhook-idempotency/providers';
 * const preset = providers.telegram({ botId: 123456789, secretToken: process.env.TELEGRAM_SECRET_TOKEN! });
 * preset.key(request); // '123456789:874512345'
 * @throws {ConfigError} naming `botId` (not digits, or a whole token) or `secretToken` (not 1–256 of `A-Z a-z 0-9 _ -`).
 * @see docs/providers.md#telegram
 */
export function telegram<Events extends object = TelegramMinimalEvents>(
  options: TelegramOptions,
): TypedPreset<Events> {
  const { botId, secretToken, resolveSecret } = requireOptions('telegram', options);
  const bot =
    typeof botId === 'number' && Number.isSafeInteger(botId) && botId > 0 ? String(botId) : botId;
  if (typeof bot !== 'string' || !BOT_ID.test(bot)) {
    const hint =
      typeof bot === 'string' && bot.includes(':')
        ? ' (that looks like a bot token: pass only the digits before the colon)'
        : '';
    throw new ConfigError('botId', `telegram() needs the bot's numeric id${hint}`);
  }
  const ring = keyring<string, Buffer>(
    {
      preset: 'telegram',
      option: 'secretToken',
      what: 'the setWebhook secret_token',
      prepare(token) {
        if (typeof token !== 'string' || !SECRET_TOKEN.test(token))
          throw new ConfigError(
            'secretToken',
            'telegram() needs the setWebhook secret_token: 1-256 characters of A-Z a-z 0-9 _ -',
          );
        return secretDigest(token);
      },
    },
    secretToken,
    resolveSecret,
  );

  return keyedPreset<Events, Buffer>(ring, {
    provider: 'telegram',
    keyDescription: 'update_id in the body',
    needsRawBody: false,
    retentionDays: 7,
    id(request) {
      const updateId = jsonBody(request)?.update_id;
      return typeof updateId === 'number' && Number.isSafeInteger(updateId) && updateId >= 0
        ? `${bot}:${updateId}`
        : undefined;
    },
    signedWith: tokenHeaderMatch('x-telegram-bot-api-secret-token'),
    eventType: updateKind,
  });
}
