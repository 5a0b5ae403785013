/**
 * @module Signers of the providers whose endpoints also answer a signed handshake the preset
 * answers itself (Twitch EventSub's verification, Zoom's URL validation), with their events.
 */
import { ConfigError } from '@webhook-idempotency/core';
import { mac, type Payload, seconds } from './common';
import {
  asHandshake,
  type Delivery,
  type DeliveryOptions,
  type Handshake,
  millis,
  newId,
  type SignerOptions,
} from './delivery';
import { secretOption, secretSigner } from './post';
import { v0Signature } from './timestamped';

/** Options of one Twitch EventSub message. */
export interface TwitchDeliveryOptions extends DeliveryOptions {
  /** `Twitch-Eventsub-Message-Id`, kept by a retry. Defaults to a new one. */
  id?: string;
  /** `Twitch-Eventsub-Subscription-Type`. Defaults to the payload's `subscription.type`, else `'channel.follow'`. */
  subscriptionType?: string;
}

/**
 * A fake Twitch EventSub: `Twitch-Eventsub-Message-Signature: sha256=<hex HMAC-SHA256 of
 * id + timestamp + body>`, the timestamp RFC 3339 with milliseconds; a retry keeps the id, is
 * signed at its own time and counts itself in `Twitch-Eventsub-Message-Retry`.
 * `verification(challenge)` is the `webhook_callback_verification` the preset answers with the challenge.
 */
export function twitch(options: SignerOptions & { secret: string }) {
  const secret = secretOption('twitch', options, 'secret');
  if (secret.length < 10 || secret.length > 100)
    throw new ConfigError(
      'secret',
      'testing.twitch() needs the subscription secret: 10 to 100 characters',
    );
  const { post } = secretSigner('twitch', options, secret);
  const message =
    (type: string) =>
    (payload: Payload, delivery: TwitchDeliveryOptions = {}): Delivery => {
      const id = delivery.id ?? newId();
      const subscription = (payload as { subscription?: { type?: unknown } }).subscription?.type;
      const subscriptionType =
        delivery.subscriptionType ??
        (typeof subscription === 'string' ? subscription : 'channel.follow');
      return post(payload, delivery, ({ body, at, retries, key }) => {
        const stamp = new Date(at).toISOString();
        return {
          'twitch-eventsub-message-id': id,
          'twitch-eventsub-message-retry': String(retries),
          'twitch-eventsub-message-type': type,
          'twitch-eventsub-message-timestamp': stamp,
          'twitch-eventsub-subscription-type': subscriptionType,
          'twitch-eventsub-subscription-version': '1',
          'twitch-eventsub-message-signature': `sha256=${mac('sha256', key, [id, stamp, body]).toString('hex')}`,
        };
      });
    };
  const notification = message('notification');
  return {
    event: notification,
    notification,
    revocation: message('revocation'),
    verification(challenge = newId(), delivery?: TwitchDeliveryOptions): Handshake {
      const subscription = {
        id: newId(),
        status: 'webhook_callback_verification_pending',
        type: 'channel.follow',
        version: '1',
      };
      return asHandshake(
        message('webhook_callback_verification')({ challenge, subscription }, delivery),
        challenge,
      );
    },
  };
}

/**
 * A fake Zoom: `x-zm-signature: v0=<hex HMAC-SHA256 of "v0:<x-zm-request-timestamp>:<body>">`,
 * signed anew on a retry. `urlValidation(plainToken)` is the `endpoint.url_validation` the
 * preset answers with `{ plainToken, encryptedToken }` (the hex HMAC-SHA256 of the plain token).
 */
export function zoom(options: SignerOptions & { secretToken: string }) {
  const secret = secretOption('zoom', options, 'secretToken');
  const { clock, post } = secretSigner('zoom', options, secret);
  const signature = v0Signature('x-zm-signature');
  const event = (payload: Payload, delivery?: DeliveryOptions): Delivery =>
    post(payload, delivery, (signing) => ({
      'x-zm-request-timestamp': String(seconds(signing.at)),
      ...signature(signing),
    }));
  return {
    event,
    urlValidation(plainToken = newId().replaceAll('-', ''), delivery?: DeliveryOptions): Handshake {
      const eventTs = delivery?.at === undefined ? clock() : millis(delivery.at);
      const made = event(
        { payload: { plainToken }, event_ts: eventTs, event: 'endpoint.url_validation' },
        delivery,
      );
      const encryptedToken = mac('sha256', secret, [plainToken]).toString('hex');
      return asHandshake(made, JSON.stringify({ plainToken, encryptedToken }));
    },
  };
}
