/**
 * @module docs/hmac.md: three real providers configured with `providers.hmac({ … })` instead of a
 * preset of their own. test/hmac-page.test.ts signs a delivery for each with node:crypto and runs
 * it through the preset.
 */
import * as providers from '@webhook-idempotency/providers';

export function herokuPreset() {
  // #region heroku
  const preset = providers.hmac({
    provider: 'heroku',
    secret: process.env.HEROKU_WEBHOOK_SECRET!, // the secret given when subscribing
    signatureHeader: 'heroku-webhook-hmac-sha256',
    encoding: 'base64', // base64 HMAC-SHA256 of the raw body, no timestamp
    key: { json: 'webhook_metadata.delivery.id' }, // kept by every attempt of one delivery
    fingerprintOmit: ['webhook_metadata.attempt'], // each attempt has an id of its own
    retentionDays: 10, // 72 hours of retries, a week of delivery history, a margin
  });
  // #endregion heroku
  return preset;
}

export function aftershipPreset() {
  // #region aftership
  const preset = providers.hmac({
    provider: 'aftership',
    secret: process.env.AFTERSHIP_WEBHOOK_SECRET!, // Settings > Notifications
    signatureHeader: 'aftership-hmac-sha256',
    encoding: 'base64', // base64 HMAC-SHA256 of the raw body, no timestamp
    key: { json: 'event_id' },
    retentionDays: 7,
  });
  // #endregion aftership
  return preset;
}

export function customerioPreset() {
  // #region customerio
  const preset = providers.hmac({
    provider: 'customerio',
    secret: [process.env.CUSTOMERIO_SIGNING_KEY!, process.env.CUSTOMERIO_OLD_SIGNING_KEY!], // any one verifies
    signatureHeader: 'x-cio-signature', // hex HMAC-SHA256
    timestamp: { header: 'x-cio-timestamp', toleranceSeconds: 300 }, // Unix seconds
    signedPayload: (r) => [`v0:${r.timestamp}:`, r.body],
    key: { json: 'event_id' },
    retentionDays: 8, // seven days of retries and a margin
  });
  // #endregion customerio
  return preset;
}
