/**
 * @module Signers of the providers that authenticate with a static secret instead of a signature
 * and are not the first of their kind (Chargebee's HTTP Basic, Auth0's Authorization token, Okta's header
 * secret, Microsoft Graph's `clientState`, Azure Event Grid's URL secret, Google
 * Calendar's channel token…). A retry is the same request;
 * the forged copy carries another password or token.
 */
import { basicOptions, type BasicSignerOptions, withCredential } from './credentials';
import { type Payload, placeOf } from './common';
import type { Challenge, Delivery, DeliveryOptions, Handshake, SignerOptions } from './delivery';
import { asHandshake, challengeOf, delivered, newId } from './delivery';
import { keyedSigner, secretOption } from './post';

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

/**
 * A fake Microsoft Graph: `{ value: notifications }`, each notification given the subscription's
 * `clientState` (the forged copy another); `validation()` the POST `?validationToken=` Graph sends
 * when a subscription is created, answered with the token.
 */
export function microsoftGraph(options: SignerOptions & { clientState: string }) {
  const state = secretOption('microsoftGraph', options, 'clientState');
  const { url, clock, post } = keyedSigner('microsoftGraph', options, [state], () => [
    `forged-${state}`,
  ]);
  const batch = (notifications: readonly object[], delivery?: DeliveryOptions): Delivery =>
    post(
      ({ key }) => ({ value: notifications.map((n) => ({ ...n, clientState: key })) }),
      delivery,
      () => ({}),
    );
  return {
    batch,
    event: batch,
    validation(
      token = `Validation: Testing client application reachability ${newId()}`,
    ): Handshake {
      const called = new URL(url);
      called.searchParams.set('validationToken', token);
      const made = delivered(clock, undefined, () => ({
        url: called.toString(),
        headers: { 'content-type': 'text/plain; charset=utf-8' },
        body: '',
      }));
      return asHandshake(made, token);
    },
  };
}

/** Options of the {@link azureEventGrid} signer. */
export interface AzureEventGridSignerOptions extends SignerOptions {
  /** The secret in the endpoint URL's query. */
  secret: string;
  /** The query parameter that carries it. Defaults to `code`. */
  queryParameter?: string;
}

/**
 * A fake Azure Event Grid: a JSON array of events POSTed to the URL with the secret in its query
 * (the forged copy another); `validation(code)` the subscription validation event, answered
 * `{"validationResponse": code}`.
 */
export function azureEventGrid(options: AzureEventGridSignerOptions) {
  const secret = secretOption('azureEventGrid', options, 'secret');
  const parameter = options.queryParameter ?? 'code';
  const { url, clock } = placeOf('azureEventGrid', options);
  const at = (key: string) => {
    const called = new URL(url);
    called.searchParams.set(parameter, key);
    return called.toString();
  };
  const send = (events: readonly object[], delivery?: DeliveryOptions): Delivery =>
    delivered(clock, delivery, ({ forged }) => ({
      url: at(forged ? `forged-${secret}` : secret),
      headers: { 'content-type': 'application/json', 'aeg-event-type': 'Notification' },
      body: JSON.stringify(events),
    }));
  return {
    batch: send,
    event: send,
    validation(code = newId()): Handshake {
      const event = {
        id: newId(),
        topic:
          '/subscriptions/0000/resourceGroups/rg/providers/Microsoft.Storage/storageAccounts/kit',
        subject: '',
        eventType: 'Microsoft.EventGrid.SubscriptionValidationEvent',
        eventTime: new Date(clock()).toISOString(),
        data: { validationCode: code },
        dataVersion: '1',
        metadataVersion: '1',
      };
      return asHandshake(send([event]), JSON.stringify({ validationResponse: code }));
    },
  };
}

/** Options of one Google Calendar notification (all headers: the body is empty). */
export interface GoogleCalendarNotification {
  /** `X-Goog-Channel-ID`. Defaults to the signer's `channelId`. */
  channelId?: string;
  /** `X-Goog-Message-Number`. Defaults to a new number above 1. */
  messageNumber?: number;
  /** `X-Goog-Resource-State`: `sync`, `exists` or `not_exists`. Defaults to `exists`. */
  resourceState?: string;
  /** `X-Goog-Resource-ID`. Defaults to `kit-resource`. */
  resourceId?: string;
}

/**
 * A fake Google Calendar push channel: empty POSTs whose headers say what changed, with the
 * channel's token in `X-Goog-Channel-Token` (the forged copy another); `sync()` the channel's
 * first message, which the preset answers itself.
 */
export function googleCalendar(options: SignerOptions & { token: string; channelId?: string }) {
  const token = secretOption('googleCalendar', options, 'token');
  const channel = options.channelId ?? newId();
  const { url, clock } = placeOf('googleCalendar', options);
  let next = 2;
  const event = (notification: GoogleCalendarNotification = {}, delivery?: DeliveryOptions) => {
    const number = notification.messageNumber ?? next++;
    return delivered(clock, delivery, ({ forged }) => ({
      url,
      // The body is empty; which content-type Google names for it is UNCONFIRMED (a JSON one
      // would be refused by a strict JSON parser, such as Fastify's, before any guard runs).
      headers: {
        'content-type': 'text/plain; charset=utf-8',
        'x-goog-channel-id': notification.channelId ?? channel,
        'x-goog-channel-token': forged ? `forged-${token}` : token,
        'x-goog-message-number': String(number),
        'x-goog-resource-state': notification.resourceState ?? 'exists',
        'x-goog-resource-id': notification.resourceId ?? 'kit-resource',
        'x-goog-resource-uri': 'https://www.googleapis.com/calendar/v3/calendars/primary/events',
        'x-goog-channel-expiration': new Date(clock() + 86_400_000).toUTCString(),
      },
      body: '',
    }));
  };
  return {
    channelId: channel,
    event,
    sync: (delivery?: DeliveryOptions): Handshake =>
      asHandshake(event({ messageNumber: 1, resourceState: 'sync' }, delivery), ''),
  };
}
