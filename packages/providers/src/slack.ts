/** @module Slack Events API preset: `api_app_id:event_id` as the key, `v0=` signature over the timestamp and raw body. */
import type { ProviderPreset } from '@webhook-idempotency/core';
import { clockOption, requireOptions, requireString, toleranceOption } from './options';
import { header, idPart, jsonBody } from './request-fields';
import { safeVerify } from './safe-verify';
import { timestampedHmac } from './timestamped-hmac';

/** Options of {@link slack}. */
export interface SlackOptions {
  /** The app's signing secret (Basic Information → App Credentials). Required. */
  signingSecret: string;
  /** Accepted distance between `X-Slack-Request-Timestamp` and now. Defaults to 300 (Slack's SDKs use 5 minutes). */
  toleranceSeconds?: number;
  /** Milliseconds since the epoch, for tests. Defaults to `Date.now`. */
  clock?: () => number;
}

const PREFIX = 'v0=';

/**
 * Slack Events API preset (PROVIDERS.md §3.13).
 *
 * - **Key**: `api_app_id:event_id` (`A0123456789:Ev0ABCDEF12`). Slack calls `event_id` globally
 *   unique; the app id keeps two apps on one endpoint apart.
 * - **Pass-through**: `type: url_verification`, which must echo its `challenge` every time.
 * - **Signature**: `X-Slack-Signature: v0=<hex HMAC-SHA256(signing secret, "v0:" + ts + ":" + rawBody)>`
 *   with `ts` = `X-Slack-Request-Timestamp`, constant time, within `toleranceSeconds` either way.
 * - **Retention**: 2 days. Slack retries 3 times within about 5 minutes, or hourly for 24 hours
 *   with Delayed Events; 48 hours covers both.
 *
 * Slack sends its first retry about 3 s after the original while your handler may still run, so
 * expect in-progress answers; keep handlers under Slack's 3-second timeout.
 *
 * @example
 * import * as providers from '@webhook-idempotency/providers';
 * const preset = providers.slack({ signingSecret: process.env.SLACK_SIGNING_SECRET! });
 * preset.key(request); // 'A0123456789:Ev0ABCDEF12'
 * @throws {ConfigError} naming `signingSecret`, `toleranceSeconds` or `clock` when invalid.
 * @see docs/providers.md#slack
 */
export function slack(options: SlackOptions): ProviderPreset {
  const { signingSecret, toleranceSeconds, clock } = requireOptions('slack', options);
  const key = requireString(
    'slack',
    'signingSecret',
    signingSecret,
    'the app signing secret as "signingSecret"',
  );
  const tolerance = toleranceOption('slack', toleranceSeconds, 300);
  const check = timestampedHmac({
    key,
    encoding: 'hex',
    toleranceSeconds: tolerance,
    now: clockOption('slack', clock),
  });

  return {
    provider: 'slack',
    keyDescription: 'api_app_id and event_id in the body',
    needsRawBody: true,
    retentionDays: 2,
    key(request) {
      const body = jsonBody(request);
      const app = idPart(body?.api_app_id);
      const event = idPart(body?.event_id);
      return app !== undefined && event !== undefined ? `${app}:${event}` : undefined;
    },
    passThrough(request) {
      return jsonBody(request)?.type === 'url_verification';
    },
    verify: safeVerify(function verifySlack(request) {
      const given = header(request, 'x-slack-signature');
      const { rawBody } = request;
      if (rawBody === undefined || given === undefined || !given.startsWith(PREFIX)) return false;
      return check({
        stamp: header(request, 'x-slack-request-timestamp'),
        signatures: [given.slice(PREFIX.length)],
        signed: (stamp) => [`v0:${stamp}:`, rawBody],
      });
    }),
  };
}
