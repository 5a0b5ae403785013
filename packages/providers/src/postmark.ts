/**
 * @module Postmark preset: a key per record type, HTTP Basic credentials (Postmark signs nothing)
 * compared hashed in constant time.
 */
import type { HttpRequest } from '@webhook-idempotency/core';
import { type BasicAuthOptions, basicAuthPreset, credentialsKeyring } from './basic-auth';
import type { TypedPreset } from './events';
import { idPart, joinedId, jsonBody, type JsonObject } from './request-fields';

/**
 * Options of {@link postmark}: the `username` and `password` in the webhook URL
 * (`https://user:password@example.com/postmark`); or `credentials`, several such pairs while you
 * change them (any one passes); or `resolveSecret`, a lookup per request (one server per customer).
 */
export type PostmarkOptions = BasicAuthOptions;

/** A Postmark record as this preset reads it: its `RecordType` (the event name; an inbound message has none) and the fields of its key. */
export interface PostmarkMinimalRecord {
  readonly RecordType?: string;
  readonly MessageID?: string;
}

/** Postmark's record types, each a {@link PostmarkMinimalRecord}. */
export type PostmarkMinimalEvents = Record<
  'Delivery' | 'Bounce' | 'SpamComplaint' | 'Open' | 'Click' | 'SubscriptionChange' | 'Inbound',
  PostmarkMinimalRecord
>;

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
  return joinedId([type, ...fields.map((name) => body[name])]);
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
export function postmark<Events extends object = PostmarkMinimalEvents>(
  options: PostmarkOptions,
): TypedPreset<Events> {
  const ring = credentialsKeyring('postmark', options);
  return basicAuthPreset<Events>(ring, {
    provider: 'postmark',
    keyDescription: 'RecordType and its record fields in the body',
    retentionDays: 7,
    id: recordKey,
    eventType(request) {
      const body = jsonBody(request);
      return body === undefined ? undefined : recordType(body);
    },
  });
}
