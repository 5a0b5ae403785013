/**
 * @module Clerk and Resend: both send their webhooks through Svix (`svix-id`, `svix-timestamp`,
 * `svix-signature`, a `whsec_` secret), so each is the Standard Webhooks preset under its own name.
 */
import type { ProviderPreset } from '@webhook-idempotency/core';
import { requireOptions } from './options';
import { standardWebhooks } from './standard-webhooks';

/** Options of {@link clerk} and {@link resend}. */
export interface SvixSenderOptions {
  /** The endpoint's signing secret, `whsec_…` (Clerk's `CLERK_WEBHOOK_SIGNING_SECRET`, Resend's `RESEND_WEBHOOK_SECRET`). Required. */
  secret: string;
  /** Accepted distance between `svix-timestamp` and now. Defaults to 300 (Svix's 5 minutes). */
  toleranceSeconds?: number;
  /** Milliseconds since the epoch, for tests. Defaults to `Date.now`. */
  clock?: () => number;
}

function svixSender(name: string, options: SvixSenderOptions): ProviderPreset {
  const { secret, toleranceSeconds, clock } = requireOptions(name, options);
  return standardWebhooks({
    secret,
    provider: name,
    ...(toleranceSeconds === undefined ? {} : { toleranceSeconds }),
    ...(clock === undefined ? {} : { clock }),
  });
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
 * @throws {ConfigError} naming `secret`, `toleranceSeconds` or `clock` when invalid.
 * @see docs/providers.md#clerk-and-resend
 */
export function clerk(options: SvixSenderOptions): ProviderPreset {
  return svixSender('clerk', options);
}

/**
 * Resend webhook preset (email events such as `email.delivered`, sent through Svix). The same
 * headers, signature, key and retention as {@link clerk}.
 *
 * @example
 * const preset = providers.resend({ secret: process.env.RESEND_WEBHOOK_SECRET! });
 * @throws {ConfigError} naming `secret`, `toleranceSeconds` or `clock` when invalid.
 * @see docs/providers.md#clerk-and-resend
 */
export function resend(options: SvixSenderOptions): ProviderPreset {
  return svixSender('resend', options);
}
