/**
 * @module SendGrid Event Webhook preset: a batch of events per request, each keyed on its
 * `sg_event_id`; the ECDSA P-256 signature of timestamp + raw body checked with the public key.
 */
import { createPublicKey, type KeyObject } from 'node:crypto';
import { type BatchRow, batchedPreset, idOrContent, jsonArrayBody } from './batched';
import { timedMember } from './keyring-members';
import type { PresetFactory } from './events';
import { publicKeyOption } from './options';
import { idPart, isJsonObject } from './request-fields';
import type { TimedSecretOptions } from './secrets';
import { BASE64 } from './signature';
import { stampedSignatureMatch } from './stamped-signature';

/**
 * Options of {@link sendgrid}: `publicKey`, the verification key SendGrid shows once signing is
 * enabled (Settings, Mail Settings, Event Webhook: base64 of the DER public key as shown, or the
 * same key as PEM), or several while you regenerate it; or `resolveSecret`, a lookup per request
 * (one subuser per customer).
 *
 * `toleranceSeconds`: accepted distance between `X-Twilio-Email-Event-Webhook-Timestamp` and now,
 * in seconds. Defaults to 90 000 (25 hours): SendGrid retries for up to 24 hours and does not say
 * whether a retry is signed anew (UNCONFIRMED), and a replay inside the window meets its receipts
 * (kept 3 days) and is answered from them.
 */
export type SendGridOptions = TimedSecretOptions<'publicKey'>;

/** One SendGrid event of a batch as this preset reads it: `sg_event_id` (its key) and `event` (its name). */
export interface SendGridMinimalEvent {
  readonly sg_event_id?: string;
  readonly event: string;
}

/** SendGrid's event names: any, each a {@link SendGridMinimalEvent}. */
export type SendGridMinimalEvents = Record<string, SendGridMinimalEvent>;

/** The ECDSA P-256 key of the verification key, given as SendGrid shows it (base64 DER) or as PEM. */
function publicKeyOf(text: string): KeyObject {
  return publicKeyOption(
    () =>
      text.includes('-----BEGIN')
        ? createPublicKey(text)
        : createPublicKey({ key: Buffer.from(text.trim(), 'base64'), format: 'der', type: 'spki' }),
    (key) => {
      const curve = key.asymmetricKeyDetails?.namedCurve;
      return key.asymmetricKeyType === 'ec' && (curve === 'prime256v1' || curve === 'P-256');
    },
    [
      'sendgrid() could not read the verification key: paste it as SendGrid shows it (base64) or as PEM',
      'sendgrid() needs an ECDSA P-256 public key',
    ],
  );
}

/**
 * SendGrid Event Webhook preset (delivered, open, click, bounce, dropped, spamreport… events,
 * POSTed in batches).
 *
 * - **Batched**: the body is a JSON array of events; each is an item with its own receipt, keyed
 *   on its `sg_event_id` (an event without one, on the SHA-256 of its content). Run them with
 *   `idempotency.batch.each` and answer 2xx (docs/providers.md#batched-deliveries).
 * - **Signature**: `X-Twilio-Email-Event-Webhook-Signature` is the base64 ECDSA (P-256, SHA-256)
 *   signature of `X-Twilio-Email-Event-Webhook-Timestamp` followed by the raw body, checked with
 *   the account's verification key; the timestamp must be within `toleranceSeconds`.
 * - **Retention**: 3 days. SendGrid retries a non-2xx answer at increasing intervals for up to
 *   24 hours after the event.
 *
 * @example
 * const preset = providers.sendgrid({ publicKey: process.env.SENDGRID_WEBHOOK_PUBLIC_KEY! });
 * @throws {ConfigError} naming `publicKey`, `toleranceSeconds` or `clock` when invalid.
 * @see docs/providers.md#sendgrid-event-webhook
 */
export const sendgrid: PresetFactory<SendGridOptions, SendGridMinimalEvents> =
  /* @__PURE__ */ timedMember<SendGridOptions, KeyObject, BatchRow<KeyObject, unknown>>({
    provider: 'sendgrid',
    secret: ['publicKey', 'the verification key'],
    toleranceSeconds: 90_000,
    toKey: publicKeyOf,
    family: batchedPreset,
    row: (_, { now, tolerance }) => ({
      keyDescription: 'sg_event_id of each event',
      needsRawBody: true,
      retentionDays: 3,
      items: jsonArrayBody,
      item: idOrContent((event) => idPart(event.sg_event_id)),
      signedWith: stampedSignatureMatch({
        header: 'x-twilio-email-event-webhook-signature',
        stampHeader: 'x-twilio-email-event-webhook-timestamp',
        encoding: 'base64',
        pattern: BASE64,
        algorithm: 'sha256',
        dsaEncoding: 'der',
        now,
        tolerance,
      }),
      itemType: (item) => (isJsonObject(item) ? idPart(item.event) : undefined),
    }),
  });
