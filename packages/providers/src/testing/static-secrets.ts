/**
 * @module Signers of the providers that authenticate with a static secret instead of a signature
 * and are not the first of their kind (Chargebee's HTTP Basic, Auth0's Authorization token, Okta's header
 * secret…). A retry is the same request;
 * the forged copy carries another password or token.
 */
import { basicOptions, type BasicSignerOptions, withCredential } from './credentials';
import { type Payload, placeOf } from './common';
import {
  type Challenge,
  challengeOf,
  type Delivery,
  type DeliveryOptions,
  newId,
  type SignerOptions,
} from './delivery';
import { secretOption } from './post';

/** A fake Chargebee: the event with the Basic credentials of the webhook URL. */
export function chargebee(options: BasicSignerOptions) {
  const send = withCredential('chargebee', options, basicOptions('chargebee', options));
  return {
    event: (event: Payload, delivery?: DeliveryOptions): Delivery => send(event, delivery),
  };
}

/** How an Auth0 log stream lays out its logs ("Content Format"). */
export type Auth0ContentFormat = 'lines' | 'array' | 'object';

/** Options of an Auth0 log-stream batch. */
export interface Auth0DeliveryOptions extends DeliveryOptions {
  /** The stream's content format. Defaults to `'lines'` (JSON lines, Auth0's default). */
  format?: Auth0ContentFormat;
}

/** The logs laid out in a content format: one JSON object per line, an array, or an object by position. */
function auth0Body(logs: readonly object[], format: Auth0ContentFormat): string {
  if (format === 'array') return JSON.stringify(logs);
  if (format === 'object') return JSON.stringify({ ...logs });
  return logs.map((log) => JSON.stringify(log)).join('\n');
}

/**
 * A fake Auth0 "Custom Webhook" log stream: a batch of logs (`{ log_id, data }`) with the stream's
 * Authorization Token as the whole `Authorization` header.
 */
export function auth0(options: SignerOptions & { authorization: string }) {
  const token = secretOption('auth0', options, 'authorization');
  const send = withCredential('auth0', options, (forged) => ({
    authorization: forged ? `forged-${token}` : token,
  }));
  const batch = (logs: readonly object[], delivery: Auth0DeliveryOptions = {}): Delivery =>
    send(auth0Body(logs, delivery.format ?? 'lines'), delivery);
  return { batch, event: batch };
}

/** Options of the {@link okta} signer. */
export interface OktaSignerOptions extends SignerOptions {
  /** The event hook's authentication secret. */
  secret: string;
  /** The header that carries it. Defaults to `authorization`. */
  header?: string;
}

const CHALLENGE_HEADER = 'x-okta-verification-challenge';

/** Okta's one-time verification GET, and its copy with a wrong secret (answered 401). */
export interface OktaChallenge extends Challenge {
  forged(): Challenge;
}

/**
 * A fake Okta event hook: `{ eventType: 'com.okta.event_hook', data: { events } }` with the
 * secret in its header; `challenge()` the one-time verification GET.
 */
export function okta(options: OktaSignerOptions) {
  const secret = secretOption('okta', options, 'secret');
  const name = options.header?.toLowerCase() ?? 'authorization';
  const credential = (forged: boolean) => ({ [name]: forged ? `forged-${secret}` : secret });
  const send = withCredential('okta', options, credential);
  const { url, clock } = placeOf('okta', options);
  const batch = (events: readonly object[], delivery?: DeliveryOptions): Delivery =>
    send(
      {
        eventType: 'com.okta.event_hook',
        eventTypeVersion: '1.0',
        cloudEventsVersion: '0.1',
        source: 'https://example.okta.com/api/v1/eventHooks/who8tc4hgqvjo6bbm0g7',
        eventId: newId(),
        eventTime: new Date(clock()).toISOString(),
        contentType: 'application/json',
        data: { events },
      },
      delivery,
    );
  const challengeWith = (value: string, forged: boolean): Challenge => ({
    ...challengeOf(url, clock(), JSON.stringify({ verification: value })),
    headers: { [CHALLENGE_HEADER]: value, ...credential(forged) },
  });
  return {
    batch,
    event: batch,
    challenge(value = newId()): OktaChallenge {
      return Object.freeze({
        ...challengeWith(value, false),
        forged: () => challengeWith(value, true),
      });
    },
  };
}
