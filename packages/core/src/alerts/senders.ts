/**
 * @module Ready notifiers: a Slack incoming webhook, and a signed JSON POST to any URL (Standard
 * Webhooks signatures). Each POST is bounded in time and size (post.ts); a body over its limit has
 * its summary cut to fit.
 */
import { ConfigError } from '../errors';
import { numberOption } from '../inbox/run';
import { NotifyError, postBounded } from './post';
import { alertSigningKey, noticeId, signature } from './signature';
import type { Alert, Notifier } from './types';

/** Options every sender takes. */
export interface SenderOptions {
  /** Milliseconds one POST may take, connection to answer. Defaults to 5000. */
  timeoutMs?: number;
  /** The largest body sent, in bytes: a longer summary is cut to fit. Defaults to 16 384; at least 256. */
  maxBodyBytes?: number;
}

/** Options of {@link slackWebhook}. */
export interface SlackWebhookOptions extends SenderOptions {
  /** The incoming webhook's URL (`https://hooks.slack.com/services/…`): a secret, keep it out of code. */
  url: string | URL;
}

/** Options of {@link signedWebhook}. */
export interface SignedWebhookOptions extends SenderOptions {
  /** Where to POST the alerts. */
  url: string | URL;
  /** The signing secret: `whsec_` and the base64 of 24 to 64 random bytes, shared with the receiver. */
  secret: string;
  /** Extra request headers (an `authorization` your receiver wants). */
  headers?: Readonly<Record<string, string>>;
}

function urlOf(value: unknown): URL {
  let url: URL | undefined;
  try {
    url = new URL(String(value));
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:'))
    throw new ConfigError('url', 'must be an http(s) URL');
  return url;
}

function limitsOf(options: SenderOptions) {
  return {
    timeoutMs: numberOption('timeoutMs', options.timeoutMs ?? 5000, 1),
    maxBodyBytes: numberOption('maxBodyBytes', options.maxBodyBytes ?? 16_384, 256, true),
  };
}

/** The body `render` makes of `alert`, its summary cut until it fits in `max` bytes. */
function fitted(alert: Alert, max: number, render: (alert: Alert) => string): Buffer {
  let summary = alert.summary;
  for (let round = 0; round < 4; round++) {
    const body = Buffer.from(render({ ...alert, summary }), 'utf8');
    if (body.length <= max) return body;
    const keep = Math.max(0, summary.length - (body.length - max) - 16);
    summary = `${summary.slice(0, keep)}…`;
  }
  throw new NotifyError(`the alert ${alert.id} does not fit in ${max} bytes`, 0);
}

/** Slack's mrkdwn escapes: stored names and messages must not become links or mentions. */
const escapeSlack = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * A notifier that posts each alert to a Slack incoming webhook, as one line of text:
 * `[FIRING] stuck (stripe): 3 stripe deliveries unfinished for more than 5 min…`.
 * @example
 * createAlertWatcher({ inbox, notify: slackWebhook({ url: process.env.SLACK_WEBHOOK_URL! }) });
 * @throws {ConfigError} naming `url`, `timeoutMs` or `maxBodyBytes` when invalid.
 * @see docs/operations.md
 */
export function slackWebhook(options: SlackWebhookOptions): Notifier {
  const url = urlOf(options?.url);
  const { timeoutMs, maxBodyBytes } = limitsOf(options);
  const render = (alert: Alert) => {
    const where = alert.provider === null ? '' : ` (${alert.provider})`;
    const text = `[${alert.state.toUpperCase()}] ${alert.condition}${where}: ${alert.summary}`;
    return JSON.stringify({ text: escapeSlack(text) });
  };
  return async function notifySlack(alert, { signal }) {
    const body = fitted(alert, maxBodyBytes, render);
    await postBounded({
      url,
      body,
      headers: { 'content-type': 'application/json' },
      timeoutMs,
      signal,
    });
  };
}

/**
 * A notifier that POSTs each alert as JSON, `{"type":"webhook-idempotency.alert","timestamp":…,
 * "data":<the Alert>}`, signed the Standard Webhooks way (`webhook-id`, `webhook-timestamp`,
 * `webhook-signature`), so the receiver can check it came from you: with
 * {@link verifyAlertSignature}, any Standard Webhooks library, or by hand (docs/operations.md).
 * `webhook-id` is the same for every try of one notice.
 * @example
 * signedWebhook({ url: 'https://ops.example.com/alerts', secret: process.env.ALERT_SECRET! })
 * @throws {ConfigError} naming `url`, `secret`, `headers`, `timeoutMs` or `maxBodyBytes` when invalid.
 * @see docs/operations.md
 */
export function signedWebhook(options: SignedWebhookOptions): Notifier {
  const url = urlOf(options?.url);
  const key = alertSigningKey(options.secret);
  const { timeoutMs, maxBodyBytes } = limitsOf(options);
  const extra = options.headers ?? {};
  if (typeof extra !== 'object' || Object.values(extra).some((v) => typeof v !== 'string'))
    throw new ConfigError('headers', 'must be an object of header name → string');
  const render = (alert: Alert) =>
    JSON.stringify({ type: 'webhook-idempotency.alert', timestamp: alert.at, data: alert });
  return async function notifySigned(alert, { signal }) {
    const body = fitted(alert, maxBodyBytes, render);
    const id = noticeId(alert);
    const timestamp = Math.floor(Date.now() / 1000);
    await postBounded({
      url,
      body,
      headers: {
        ...extra,
        'content-type': 'application/json',
        'webhook-id': id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signature(key, id, timestamp, body),
      },
      timeoutMs,
      signal,
    });
  };
}
