/** @module Slack Events API preset: `api_app_id:event_id` as the key, `v0=` signature over the timestamp and raw body. */
import { typed, type TypedPreset } from './events';
import { clockOption, requireOptions, toleranceOption } from './options';
import { header, idPart, isJsonObject, jsonBody } from './request-fields';
import { firstMatch, keyring, stringSecret, type SecretOptions } from './secrets';
import { timestampedHmac } from './timestamped-hmac';

/**
 * Options of {@link slack}: `signingSecret`, the app's signing secret (Basic Information → App
 * Credentials), or several while you regenerate it; or `resolveSecret`, a lookup per request
 * (one app per customer).
 */
export type SlackOptions = SecretOptions<'signingSecret', string> & {
  /** Accepted distance between `X-Slack-Request-Timestamp` and now. Defaults to 300 (Slack's SDKs use 5 minutes). */
  toleranceSeconds?: number;
  /** Milliseconds since the epoch, for tests. Defaults to `Date.now`. */
  clock?: () => number;
};

/**
 * An Events API delivery as this preset reads it: the app and event ids (the key) and the inner
 * event's `type` (the event name). `@webhook-idempotency/providers/types/slack` types the inner
 * event with `@slack/types`.
 */
export interface SlackMinimalEnvelope<Event = { readonly type: string }> {
  readonly type: 'event_callback';
  readonly api_app_id: string;
  readonly event_id: string;
  readonly event: Event;
}

/** Slack's events without `@slack/types`: any name, each a {@link SlackMinimalEnvelope}. */
export type SlackMinimalEvents = Record<string, SlackMinimalEnvelope>;

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
 * - **Events**: `eventType(request)` is the inner `event.type` (`app_mention`); the map is
 *   {@link SlackMinimalEvents}, or `@slack/types`' with `slack<SlackEvents>(…)` and `SlackEvents`
 *   from `@webhook-idempotency/providers/types/slack`.
 *
 * @throws {ConfigError} naming `signingSecret`, `resolveSecret`, `toleranceSeconds` or `clock` when invalid.
 * @see docs/providers.md#slack
 */
export function slack<Events extends object = SlackMinimalEvents>(
  options: SlackOptions,
): TypedPreset<Events> {
  const { signingSecret, resolveSecret, toleranceSeconds, clock } = requireOptions(
    'slack',
    options,
  );
  const now = clockOption('slack', clock);
  const ring = keyring(
    stringSecret('slack', 'signingSecret', 'the app signing secret', now),
    signingSecret,
    resolveSecret,
  );
  const check = timestampedHmac({
    encoding: 'hex',
    toleranceSeconds: toleranceOption('slack', toleranceSeconds, 300),
    now,
  });

  return typed<Events>(
    {
      provider: 'slack',
      keyDescription: 'api_app_id and event_id in the body',
      needsRawBody: true,
      retentionDays: 2,
      key(request) {
        const body = jsonBody(request);
        const app = idPart(body?.api_app_id);
        const event = idPart(body?.event_id);
        return ring.scope(
          request,
          app !== undefined && event !== undefined ? `${app}:${event}` : undefined,
        );
      },
      passThrough(request) {
        return jsonBody(request)?.type === 'url_verification';
      },
      verify(request) {
        return ring.verify(request, (r, keys) => {
          const given = header(r, 'x-slack-signature');
          const { rawBody } = r;
          if (rawBody === undefined || given === undefined || !given.startsWith(PREFIX))
            return undefined;
          const signature = {
            stamp: header(r, 'x-slack-request-timestamp'),
            signatures: [given.slice(PREFIX.length)],
            signed: (stamp: string) => [`v0:${stamp}:`, rawBody],
          };
          return firstMatch(keys, (key) => check(key, signature));
        });
      },
    },
    (request) => {
      const event = jsonBody(request)?.event;
      return isJsonObject(event) ? idPart(event.type) : undefined;
    },
  );
}
