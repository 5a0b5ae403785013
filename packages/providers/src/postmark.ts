/**
 * @module Postmark preset: a key per record type, HTTP Basic credentials (Postmark signs nothing)
 * compared hashed in constant time.
 */
import type { HttpRequest, ProviderPreset } from '@webhook-idempotency/core';
import { basicAuthChecker } from './basic-auth';
import { requireOptions, requireString } from './options';
import { header, idPart, jsonBody, type JsonObject } from './request-fields';
import { safeVerify } from './safe-verify';

/** Options of {@link postmark}. */
export interface PostmarkOptions {
  /** The user name in the webhook URL (`https://user:password@example.com/postmark`). Required. */
  username: string;
  /** The password in the webhook URL. Required. */
  password: string;
}

/** Which fields name one record of each type, after the type itself. */
const KEY_FIELDS: Readonly<Record<string, readonly string[]>> = {
  Delivery: ['MessageID', 'Recipient'],
  Bounce: ['ID'],
  SpamComplaint: ['ID'],
  Open: ['MessageID', 'Recipient', 'ReceivedAt'],
  Click: ['MessageID', 'Recipient', 'ReceivedAt', 'OriginalLink'],
  SubscriptionChange: ['MessageID', 'Recipient', 'ChangedAt'],
  Inbound: ['MessageID'],
};

/** An inbound message has no `RecordType`; it is the one record with `MessageID` and `FromFull`. */
function recordType(body: JsonObject): string | undefined {
  const type = idPart(body.RecordType);
  if (type !== undefined) return type;
  return body.FromFull !== undefined && body.MessageID !== undefined ? 'Inbound' : undefined;
}

function recordKey(request: HttpRequest): string | undefined {
  const body = jsonBody(request);
  if (body === undefined) return undefined;
  const type = recordType(body);
  const fields = type === undefined ? undefined : KEY_FIELDS[type];
  if (fields === undefined) return undefined;
  const parts = fields.map((name) => idPart(body[name]));
  if (parts.some((part) => part === undefined)) return undefined;
  return [type, ...parts].join(':');
}

/**
 * Postmark webhook preset (delivery, bounce, spam complaint, open, click, subscription change and
 * inbound webhooks).
 *
 * - **Key**: the `RecordType` with the fields that name one record of it: `Delivery:MessageID:Recipient`,
 *   `Bounce:ID`, `SpamComplaint:ID`, `Open:MessageID:Recipient:ReceivedAt`,
 *   `Click:MessageID:Recipient:ReceivedAt:OriginalLink`, `SubscriptionChange:MessageID:Recipient:ChangedAt`,
 *   `Inbound:MessageID`. `RecordType` + `MessageID` alone would merge the deliveries of one
 *   message to several recipients, and every open or click after the first.
 * - **Authentication**: Postmark signs nothing. Put credentials in the webhook URL
 *   (`https://user:password@…`); Postmark sends them as HTTP Basic, and the preset compares them
 *   hashed, in constant time. They cover no part of the body: anyone who saw one delivery can
 *   send others, so keep the endpoint on HTTPS (and, if you can, allow only Postmark's IPs).
 * - **Retention**: 7 days (Postmark retries failed deliveries for some hours; the schedule per
 *   webhook type is UNCONFIRMED here).
 *
 * @example
 * const preset = providers.postmark({ username: 'postmark', password: process.env.POSTMARK_WEBHOOK_PASSWORD! });
 * @throws {ConfigError} naming `username` or `password` when invalid.
 * @see docs/providers.md#postmark
 */
export function postmark(options: PostmarkOptions): ProviderPreset {
  const { username, password } = requireOptions('postmark', options);
  const checkAuth = basicAuthChecker(
    'postmark',
    'username',
    requireString('postmark', 'username', username, 'the webhook URL user name as "username"'),
    requireString('postmark', 'password', password, 'the webhook URL password as "password"'),
  );
  return {
    provider: 'postmark',
    keyDescription: 'RecordType and its record fields in the body',
    needsRawBody: false,
    retentionDays: 7,
    key: recordKey,
    verify: safeVerify(function verifyPostmark(request) {
      return checkAuth(header(request, 'authorization'));
    }),
  };
}
