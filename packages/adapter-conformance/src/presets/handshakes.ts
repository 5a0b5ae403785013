/**
 * @module Fixtures of the presets that answer a handshake or challenge themselves: Twitch
 * EventSub's verification and Zoom's URL validation (signed POSTs), Braintree's `bt_challenge`
 * GET; with each provider's events. Each answer sent back as a delivery is what the challenge
 * cases replay.
 */
import { createHash } from 'node:crypto';
import { canonicalJson, sha256Hex } from '@webhook-idempotency/core/adapter';
import * as providers from '@webhook-idempotency/providers';
import * as signers from '@webhook-idempotency/providers/testing';
import { HOOK_URL, type PresetFixture, requestOf } from './fixture';

const url = HOOK_URL;
const FORM = { 'content-type': 'application/x-www-form-urlencoded' } as const;

const TWITCH_SECRET = 'conformance-twitch-secret';
const twitch = () => signers.twitch({ secret: TWITCH_SECRET, url });
const twitchFollow = { subscription: { type: 'channel.follow' }, event: { user_id: '1' } };

const ZOOM_SECRET = 'conformance zoom secret token';
const zoom = () => signers.zoom({ secretToken: ZOOM_SECRET, url });
/** Zoom's key: event, event_ts and the first 32 hex of the SHA-256 of the payload's canonical JSON. */
const zoomKey = (event: string, ts: number, payload: unknown) =>
  `${event}:${ts}:${sha256Hex(canonicalJson(payload)).slice(0, 32)}`;
const zoomStarted = { account_id: 'acct', object: { id: '85746065', uuid: 'conformance==' } };
const zoomEvent = () =>
  zoom().event({ event: 'meeting.started', event_ts: 1733306400123, payload: zoomStarted });
const VALIDATED_AT = 1733306400999;

const braintree = () =>
  signers.braintree({
    publicKey: 'conformance_public_key',
    privateKey: 'conformance_private_key',
    url,
  });
const braintreeXml =
  '<notification><timestamp type="datetime">2026-12-04T10:00:00Z</timestamp><kind>check</kind><subject><check type="boolean">true</check></subject></notification>';
const BRAINTREE_CHALLENGE = '38aa0fc4d7cf1e85b6d5a8e9';

export const handshakeFixtures: readonly PresetFixture[] = [
  {
    name: 'twitch (a retry counts itself in Twitch-Eventsub-Message-Retry)',
    preset: () => providers.twitch({ secret: TWITCH_SECRET }),
    externalId: 'twitch-msg-conformance',
    timed: true,
    delivery: () => twitch().notification(twitchFollow, { id: 'twitch-msg-conformance' }),
    handshake: {
      request: () => twitch().verification('conformance-challenge', { id: 'twitch-msg-challenge' }),
      externalId: 'twitch-msg-challenge',
      // The echoed challenge as a notification's signature.
      replay: (answer) => {
        const notification = requestOf(
          twitch().notification(twitchFollow, { id: 'twitch-msg-conformance' }),
        );
        const signature = { 'twitch-eventsub-message-signature': `sha256=${answer}` };
        return { ...notification, headers: { ...notification.headers, ...signature } };
      },
    },
  },
  {
    name: 'zoom',
    preset: () => providers.zoom({ secretToken: ZOOM_SECRET }),
    externalId: zoomKey('meeting.started', 1733306400123, zoomStarted),
    timed: false,
    delivery: zoomEvent,
    handshake: {
      request: () => zoom().urlValidation('conformance-plain-token', { at: VALIDATED_AT }),
      externalId: zoomKey('endpoint.url_validation', VALIDATED_AT, {
        plainToken: 'conformance-plain-token',
      }),
      // The encryptedToken (an HMAC under the signing secret) as a delivery's signature.
      replay: (answer) => {
        const { encryptedToken } = JSON.parse(answer) as { encryptedToken: string };
        const event = requestOf(zoomEvent());
        return {
          ...event,
          headers: { ...event.headers, 'x-zm-signature': `v0=${encryptedToken}` },
        };
      },
    },
  },
  {
    name: 'braintree (a form body)',
    preset: () =>
      providers.braintree({
        publicKey: 'conformance_public_key',
        privateKey: 'conformance_private_key',
      }),
    externalId: `check:2026-12-04T10:00:00Z:${createHash('sha256').update(braintreeXml).digest('hex').slice(0, 32)}`,
    timed: false,
    delivery: () => braintree().event(braintreeXml),
    challenge: {
      request: () => braintree().challenge(BRAINTREE_CHALLENGE),
      // The answer signs the challenge's hex: sent as bt_payload under that signature.
      replay: (answer) => ({
        body: new URLSearchParams({
          bt_signature: answer,
          bt_payload: BRAINTREE_CHALLENGE,
        }).toString(),
        headers: FORM,
      }),
    },
  },
];
