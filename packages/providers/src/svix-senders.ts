/**
 * @module The senders of Standard Webhooks and Svix (Clerk, Resend, OpenAI…): each signs
 * `${id}.${timestamp}.${rawBody}` into a `v1,<base64>` list under `webhook-*` or `svix-*` headers,
 * so each is the Standard Webhooks preset under its own name, with its own retention and secret.
 */
import type { HttpRequest } from '@webhook-idempotency/core';
import type { Named, TypedPreset } from './events';
import { requireOptions } from './options';
import { bodyField, jsonBody } from './request-fields';
import type { TimedSecretOptions } from './secrets';
import {
  type StandardWebhooksMinimalEvents,
  type StandardWebhooksSender,
  standardWebhooksAs,
} from './standard-webhooks';

/**
 * Options of {@link clerk}, {@link resend} and the other Standard Webhooks senders: `secret`, the
 * endpoint's signing secret, `whsec_…` (Clerk's `CLERK_WEBHOOK_SIGNING_SECRET`, Resend's
 * `RESEND_WEBHOOK_SECRET`), or several while you rotate it; or `resolveSecret`, a lookup per request.
 *
 * `toleranceSeconds`: accepted distance between the signed timestamp and now. Defaults to 300 (5
 * minutes).
 */
export type SvixSenderOptions = TimedSecretOptions<'secret'>;

/** The Standard Webhooks preset named `name`, as the sender `sender` signs (default: 30 days, base64). */
function svixSender<Events extends object>(
  name: string,
  options: SvixSenderOptions,
  sender: StandardWebhooksSender & { readonly provider?: string } = {},
): TypedPreset<Events> {
  const { secret, resolveSecret, toleranceSeconds, clock } = requireOptions(name, options);
  const { provider = name, ...own } = sender;
  return standardWebhooksAs<Events>(
    name,
    {
      ...(resolveSecret === undefined
        ? { secret: secret as NonNullable<typeof secret> }
        : { resolveSecret }),
      provider,
      ...(toleranceSeconds === undefined ? {} : { toleranceSeconds }),
      ...(clock === undefined ? {} : { clock }),
    },
    own,
  );
}

/**
 * Clerk webhook preset (user, session and organization events, sent through Svix).
 *
 * - **Key**: `svix-id`, the message id Svix keeps across its retries.
 * - **Signature**: `svix-signature` (`v1,<base64>` entries), HMAC-SHA256 with the base64 secret
 *   after `whsec_` over `${svix-id}.${svix-timestamp}.${rawBody}`; the timestamp within 5 minutes.
 * - **Retention**: 30 days: Svix retries for about 28 hours, and a message can be replayed from
 *   Clerk's dashboard after that.
 *
 * @example
 * const preset = providers.clerk({ secret: process.env.CLERK_WEBHOOK_SIGNING_SECRET! });
 * - **Events**: `eventType(request)` is the payload's `type` (`user.created`); Clerk's own
 *   `WebhookEvent` map with `clerk<ClerkEvents>(…)` and `ClerkEvents` from
 *   `@webhook-idempotency/providers/types/clerk`.
 *
 * @throws {ConfigError} naming `secret`, `resolveSecret`, `toleranceSeconds` or `clock` when invalid.
 * @see docs/providers.md#clerk-and-resend
 */
export function clerk<Events extends object = StandardWebhooksMinimalEvents>(
  options: SvixSenderOptions,
): TypedPreset<Events> {
  return svixSender<Events>('clerk', options);
}

/**
 * Resend webhook preset (email events such as `email.delivered`, sent through Svix). The same
 * headers, signature, key and retention as {@link clerk}. Resend's own `WebhookEventPayload` map
 * with `resend<ResendEvents>(…)` and `ResendEvents` from `@webhook-idempotency/providers/types/resend`.
 *
 * @example
 * const preset = providers.resend({ secret: process.env.RESEND_WEBHOOK_SECRET! });
 * @throws {ConfigError} naming `secret`, `resolveSecret`, `toleranceSeconds` or `clock` when invalid.
 * @see docs/providers.md#clerk-and-resend
 */
export function resend<Events extends object = StandardWebhooksMinimalEvents>(
  options: SvixSenderOptions,
): TypedPreset<Events> {
  return svixSender<Events>('resend', options);
}

/**
 * OpenAI webhook preset (`response.completed`, `batch.completed`, `fine_tuning.job.succeeded`,
 * `realtime.call.incoming`…), Standard Webhooks headers (`webhook-id`, `webhook-timestamp`,
 * `webhook-signature`) under the endpoint's `whsec_…` signing secret.
 *
 * - **Key**: `webhook-id`, the same on every retry of an event.
 * - **Signature**: as {@link clerk}; the timestamp within 5 minutes either way, as `openai`'s
 *   `webhooks.unwrap()`.
 * - **Retention**: 30 days (OpenAI retries for up to 72 hours).
 * - **Events**: `eventType(request)` is the payload's `type`; `OpenAIEvents` from
 *   `@webhook-idempotency/providers/types/openai` types them from `openai`'s `UnwrapWebhookEvent`.
 *
 * @example
 * const preset = providers.openai({ secret: process.env.OPENAI_WEBHOOK_SECRET! });
 * @throws {ConfigError} naming `secret`, `resolveSecret`, `toleranceSeconds` or `clock` when invalid.
 * @see docs/providers.md#openai
 */
export function openai<Events extends object = StandardWebhooksMinimalEvents>(
  options: SvixSenderOptions,
): TypedPreset<Events> {
  return svixSender<Events>('openai', options);
}

/** A Replicate webhook as the preset reads it: the prediction's `id` and `status`. */
export type ReplicateMinimalEvent = Named<'id' | 'status'>;

/** Replicate's deliveries by status, each a {@link ReplicateMinimalEvent}. */
export type ReplicateMinimalEvents = Record<string, ReplicateMinimalEvent>;

/**
 * Replicate webhook preset (a prediction's or training's updates: created, new output or logs,
 * finished), Standard Webhooks headers under the account's `whsec_…` signing secret.
 *
 * - **Key**: `webhook-id`, the same when Replicate resends one webhook; each update of a
 *   prediction is a webhook of its own, with its own id, and is booked once.
 * - **Signature**: as {@link openai}; the timestamp within 5 minutes either way.
 * - **Retention**: 30 days (Replicate's retry schedule is not published).
 * - **Events**: `eventType(request)` is the prediction's `status` (`succeeded`);
 *   `ReplicateEvents` from `@webhook-idempotency/providers/types/replicate` types them from
 *   `replicate`'s `Prediction`.
 *
 * @example
 * const preset = providers.replicate({ secret: process.env.REPLICATE_WEBHOOK_SECRET! });
 * @throws {ConfigError} naming `secret`, `resolveSecret`, `toleranceSeconds` or `clock` when invalid.
 * @see docs/providers.md#replicate
 */
export function replicate<Events extends object = ReplicateMinimalEvents>(
  options: SvixSenderOptions,
): TypedPreset<Events> {
  return svixSender<Events>('replicate', options, { eventType: bodyField('status') });
}

/** A Stytch webhook as the preset reads it: the parts of its event type, and its `event_id`. */
export type StytchMinimalEvent = Named<'source' | 'object_type' | 'action' | 'event_id'>;

/** Stytch's events by type (`direct.user.create`), each a {@link StytchMinimalEvent}. */
export type StytchMinimalEvents = Record<string, StytchMinimalEvent>;

/** Stytch's event name, `source.object_type.action` in lower case (`direct.user.create`). */
function stytchEventType(request: HttpRequest): string | undefined {
  const body = jsonBody(request);
  const parts = [body?.source, body?.object_type, body?.action];
  if (!parts.every((part) => typeof part === 'string' && part !== '')) return undefined;
  return parts.join('.').toLowerCase();
}

/**
 * Stytch webhook preset (users, organizations, members and SSO connections created, updated or
 * deleted), sent through Svix: `svix-id`, `svix-timestamp`, `svix-signature` under the
 * endpoint's `whsec_…` signing secret.
 *
 * - **Key**: `svix-id`, Svix's message id, the same on every retry; the body's `event_id`
 *   names the event too (see the docs).
 * - **Signature**: as {@link clerk}; the timestamp within 5 minutes either way.
 * - **Retention**: 30 days: Svix retries for about 28 hours, and messages can be replayed.
 * - **Events**: `eventType(request)` is Stytch's event type, `source.object_type.action` in
 *   lower case (`dashboard.member.create`). Stytch publishes no webhook types.
 *
 * @example
 * const preset = providers.stytch({ secret: process.env.STYTCH_WEBHOOK_SECRET! });
 * @throws {ConfigError} naming `secret`, `resolveSecret`, `toleranceSeconds` or `clock` when invalid.
 * @see docs/providers.md#stytch
 */
export function stytch<Events extends object = StytchMinimalEvents>(
  options: SvixSenderOptions,
): TypedPreset<Events> {
  return svixSender<Events>('stytch', options, { eventType: stytchEventType });
}

/**
 * Polar webhook preset (orders, subscriptions, checkouts, customers, benefits…), Standard
 * Webhooks headers under the endpoint's secret.
 *
 * - **Key**: `webhook-id`, the same on every retry of an event.
 * - **Signature**: Standard Webhooks, but the HMAC key is the secret's own UTF-8 bytes: Polar's
 *   SDK hands the raw secret to its verifier, not a base64 key. As `@polar-sh/sdk`'s
 *   `validateEvent` does, a secret that is also `whsec_` and base64 is tried both ways.
 *   The timestamp within 5 minutes either way.
 * - **Retention**: 30 days (at-least-once delivery with exponential backoff).
 * - **Events**: `eventType(request)` is the payload's `type` (`order.paid`); `PolarEvents` from
 *   `@webhook-idempotency/providers/types/polar` types them from `@polar-sh/sdk`'s `WebhookPayload`.
 *
 * @example
 * const preset = providers.polar({ secret: process.env.POLAR_WEBHOOK_SECRET! });
 * @throws {ConfigError} naming `secret`, `resolveSecret`, `toleranceSeconds` or `clock` when invalid.
 * @see docs/providers.md#polar
 */
export function polar<Events extends object = StandardWebhooksMinimalEvents>(
  options: SvixSenderOptions,
): TypedPreset<Events> {
  return svixSender<Events>('polar', options, { encodings: ['utf8', 'base64'] });
}

/**
 * Dodo Payments webhook preset (payments, subscriptions, refunds, disputes, licence keys…),
 * Standard Webhooks headers under the endpoint's `whsec_…` signing secret.
 *
 * - **Key**: `webhook-id`, the same on every retry of an event.
 * - **Signature**: as {@link openai}; the timestamp within 5 minutes either way. After a
 *   rotation the old secret stays valid for 24 hours: give both while that lasts.
 * - **Retention**: 30 days (retries with exponential backoff, and replays per message).
 * - **Events**: `eventType(request)` is the payload's `type` (`payment.succeeded`);
 *   `DodoPaymentsEvents` from `@webhook-idempotency/providers/types/dodopayments` types them from
 *   `dodopayments`' `UnwrapWebhookEvent`.
 *
 * @example
 * const preset = providers.dodopayments({ secret: process.env.DODO_PAYMENTS_WEBHOOK_KEY! });
 * @throws {ConfigError} naming `secret`, `resolveSecret`, `toleranceSeconds` or `clock` when invalid.
 * @see docs/providers.md#dodo-payments
 */
export function dodopayments<Events extends object = StandardWebhooksMinimalEvents>(
  options: SvixSenderOptions,
): TypedPreset<Events> {
  return svixSender<Events>('dodopayments', options);
}

/** A Supabase Auth hook's body: each hook sends its own fields (`user`, `email_data`, `claims`…). */
export type SupabaseAuthHooksMinimalEvent = Readonly<Record<string, unknown>>;

/** Supabase Auth hooks name no event: no name maps to a body of its own. */
export type SupabaseAuthHooksMinimalEvents = Record<string, SupabaseAuthHooksMinimalEvent>;

/**
 * Supabase Auth Hooks preset (HTTP hooks: Send Email, Send SMS, Custom Access Token, Before User
 * Created, MFA and Password Verification Attempt), Standard Webhooks headers under the hook's
 * secret, which Supabase shows as `v1,whsec_…`: given with or without the `v1,`.
 *
 * - **Key**: `webhook-id`. Every hook call is booked, and a call repeated with the same id is
 *   answered from its receipt (the hooks are synchronous: the answer is what Auth reads).
 * - **Signature**: as {@link openai}; the timestamp within 5 minutes either way.
 * - **Retention**: 7 days (a hook is answered within seconds; no retry window is published).
 * - **Events**: hooks name no event: `eventType(request)` is `undefined`.
 *
 * @example
 * const preset = providers.supabaseAuthHooks({ secret: process.env.SEND_EMAIL_HOOK_SECRET! });
 * @throws {ConfigError} naming `secret`, `resolveSecret`, `toleranceSeconds` or `clock` when invalid.
 * @see docs/providers.md#supabase-auth-hooks
 */
export function supabaseAuthHooks<Events extends object = SupabaseAuthHooksMinimalEvents>(
  options: SvixSenderOptions,
): TypedPreset<Events> {
  return svixSender<Events>('supabaseAuthHooks', options, {
    provider: 'supabase-auth-hooks',
    retentionDays: 7,
    secretPrefix: 'v1,',
    eventType: () => undefined,
  });
}
