/** @module GitHub preset: `X-GitHub-Delivery` as the key, `X-Hub-Signature-256` verified on the raw body. */
import type { PresetFactory } from './events';
import { keyedPreset } from './keyed-preset';
import { booleanOption, requireOptions } from './options';
import { hubSignatureMatch } from './hub-signature';
import { header } from './request-fields';
import { type SecretOptions, stringKeyring } from './secrets';

/**
 * Options of {@link github}: `secret`, the webhook secret configured on the hook or app, or several
 * while you change it; or `resolveSecret`, a lookup per request (one app or hook per customer).
 */
export type GitHubOptions = SecretOptions<'secret', string> & {
  /**
   * Key on `X-GitHub-Hook-ID:X-GitHub-Delivery` instead of the delivery GUID alone. The GUID is
   * shared by every hook subscribed to the event, so turn this on when one endpoint serves several
   * hooks or apps and each must act. Defaults to `false`.
   */
  perHook?: boolean;
};

/**
 * A GitHub delivery's body as this preset reads it: nothing (the key and the event name,
 * `X-GitHub-Event`, are headers). GitHub's own payload types, from its OpenAPI description, come
 * from `@webhook-idempotency/providers/types/github`.
 */
export type GitHubMinimalPayload = { readonly action?: string } & Readonly<Record<string, unknown>>;

/** GitHub's events without their types: any name, each a {@link GitHubMinimalPayload}. */
export type GitHubMinimalEvents = Record<string, GitHubMinimalPayload>;

/**
 * GitHub webhook preset (docs/providers.md#github).
 *
 * - **Key**: `X-GitHub-Delivery` (a GUID per event, kept by a manual redelivery), or
 *   `hookId:delivery` with `perHook: true`.
 * - **Pass-through**: none.
 * - **Signature**: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256(secret, rawBody)>`, constant time.
 *   The legacy SHA-1 `X-Hub-Signature` is not accepted. No timestamp is signed, so there is no
 *   tolerance: the delivery GUID is the replay protection.
 * - **Retention**: 7 days. GitHub does not retry by itself; failed deliveries can be redelivered by
 *   hand for 3 days, so 7 days covers that with a margin.
 *
 * @example
 * import * as providers from '@webhook-idempotency/providers';
 * const preset = providers.github({ secret: process.env.GITHUB_WEBHOOK_SECRET! });
 * preset.key(request); // '72d3162e-cc78-11e3-81ab-4c9367dc0958'
 * @throws {ConfigError} naming `secret` or `perHook` when invalid.
 * @see docs/providers.md#github
 */
export const github: PresetFactory<GitHubOptions, GitHubMinimalEvents> = (options) => {
  const { perHook } = requireOptions('github', options);
  const ring = stringKeyring('github', options, 'secret', 'the webhook secret');
  const scoped = booleanOption('github', 'perHook', perHook, false);

  return keyedPreset(ring, {
    provider: 'github',
    keyDescription: scoped
      ? 'X-GitHub-Hook-ID and X-GitHub-Delivery headers'
      : 'X-GitHub-Delivery header',
    needsRawBody: true,
    retentionDays: 7,
    id(request) {
      const delivery = header(request, 'x-github-delivery');
      if (delivery === undefined || delivery === '') return undefined;
      if (!scoped) return delivery;
      const hook = header(request, 'x-github-hook-id');
      return hook === undefined || hook === '' ? undefined : `${hook}:${delivery}`;
    },
    signedWith: hubSignatureMatch,
    eventType: (request) => header(request, 'x-github-event'),
  });
};
