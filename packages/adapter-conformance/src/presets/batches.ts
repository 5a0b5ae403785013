/**
 * @module One genuine batch per batched preset (SendGrid, HubSpot, Adyen, Meta, Mandrill, Auth0,
 * Okta, Microsoft Graph, Azure Event Grid, LINE, GoCardless), signed by the test kit, with a
 * re-batch that repeats one item beside a new one, and Meta's and Okta's verification GETs: what
 * the batch cases send through every adapter.
 */
import { canonicalJson, sha256Hex } from '@webhook-idempotency/core/adapter';
import * as providers from '@webhook-idempotency/providers';
import * as signers from '@webhook-idempotency/providers/testing';
import type { Delivery } from '@webhook-idempotency/providers/testing';
import type { Answer } from '../types';
import { type BatchFixture, HOOK_URL, presetRequestOf } from './fixture';

const url = HOOK_URL;
const sendgrid = () => signers.sendgrid({ url });
const sendgridEvents = (ids: readonly string[]) =>
  ids.map((sg_event_id) => ({ sg_event_id, event: 'delivered', email: 'a@example.com' }));

const HUBSPOT_SECRET = 'conformance hubspot secret';
const hubspot = () => signers.hubspot({ clientSecret: HUBSPOT_SECRET, targetUrl: url });
const hubspotEvents = (events: readonly [eventId: number, attemptNumber: number][]) =>
  events.map(([eventId, attemptNumber]) => ({
    eventId,
    subscriptionId: 20,
    portalId: 10,
    occurredAt: 1_764_000_000_000,
    subscriptionType: 'contact.creation',
    attemptNumber,
    objectId: 123,
  }));

const ADYEN_KEY = '44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056';
const adyen = () => signers.adyen({ hmacKey: ADYEN_KEY, url });
type AdyenItem = readonly [pspReference: string, eventCode: string];
const adyenItems = (items: readonly AdyenItem[]) =>
  items.map(([pspReference, eventCode]) => ({
    pspReference,
    merchantAccountCode: 'ConformanceECOM',
    merchantReference: 'order-1',
    amount: { value: 1000, currency: 'EUR' },
    eventCode,
    success: 'true',
  }));

const META_SECRET = 'conformance meta secret';
const meta = () => signers.meta({ appSecret: META_SECRET, verifyToken: 'conformance-token', url });
const metaChanges = (ids: readonly string[]) =>
  ids.map((id) => ({
    field: 'messages',
    value: { messages: [{ id, from: '1555', type: 'text', text: { body: 'hi' } }] },
  }));

const MANDRILL_KEY = 'conformance mandrill webhook key';
const mandrill = () => signers.mandrill({ webhookKey: MANDRILL_KEY, url });
/** Mandrill events carry no id of their own: each is keyed on its content's SHA-256. */
const mandrillEvent = (ts: number) => ({ event: 'open', _id: 'msg-conformance', ts });
const mandrillKey = (ts: number) => `sha256:${sha256Hex(canonicalJson(mandrillEvent(ts)))}`;

const AUTH0_TOKEN = 'Bearer conformance auth0 token';
const auth0 = () => signers.auth0({ authorization: AUTH0_TOKEN, url });
const ARRAY = { format: 'array' } as const;
const auth0Logs = (ids: readonly string[]) =>
  ids.map((log_id) => ({ log_id, data: { type: 's', log_id, user_id: 'auth0|1' } }));

const OKTA_SECRET = 'conformance okta secret';
const okta = () => signers.okta({ secret: OKTA_SECRET, url });
const oktaEvents = (ids: readonly string[]) =>
  ids.map((uuid) => ({ uuid, eventType: 'user.session.start', actor: { id: '00u1' } }));

const GRAPH_STATE = 'conformance graph client state';
const graph = () => signers.microsoftGraph({ clientState: GRAPH_STATE, url });
const graphNotes = (ids: readonly string[]) =>
  ids.map((id) => ({
    subscriptionId: 'c0nf0rma-0000-4000-8000-000000000001',
    changeType: 'created',
    resource: `Users/u1/Messages/${id}`,
    resourceData: { '@odata.type': '#Microsoft.Graph.Message', id },
  }));

const GRID_SECRET = 'conformance-event-grid-secret';
const grid = () => signers.azureEventGrid({ secret: GRID_SECRET, url });
const gridEvents = (ids: readonly string[]) =>
  ids.map((id) => ({ id, eventType: 'Microsoft.Storage.BlobCreated', subject: `/blobs/${id}` }));

/** The receipt keys the preset gives these notifications: it reads them from a batch of them. */
const graphKeys = (ids: readonly string[]) => {
  const preset = providers.microsoftGraph({ clientState: GRAPH_STATE });
  const request = presetRequestOf(graph().batch(graphNotes(ids)));
  return (preset.items?.(request) ?? []).map((item) => String(item.key));
};

const LINE_SECRET = 'conformance line channel secret';
const line = () => signers.line({ channelSecret: LINE_SECRET, url });
const lineEvents = (ids: readonly [webhookEventId: string, isRedelivery: boolean][]) =>
  ids.map(([webhookEventId, isRedelivery]) => ({
    type: 'message',
    mode: 'active',
    timestamp: 1_764_626_400_000,
    source: { type: 'user', userId: 'U4af4980629' },
    webhookEventId,
    deliveryContext: { isRedelivery },
    message: { type: 'text', id: webhookEventId, text: 'hi' },
  }));

const GOCARDLESS_SECRET = 'conformance gocardless endpoint secret';
const gocardless = () => signers.gocardless({ secret: GOCARDLESS_SECRET, url });
const gocardlessEvents = (ids: readonly string[]) =>
  ids.map((id) => ({
    id,
    created_at: '2026-12-01T12:00:00.000Z',
    resource_type: 'payments',
    action: 'confirmed',
    links: { payment: 'PM0000CONFORM' },
    details: { origin: 'gocardless', cause: 'payment_confirmed' },
  }));

/**
 * A batch of the first two of `items` and its re-batch, which repeats the second beside the third
 * (a new one), each sent by `send` (told which item it repeats, where a provider marks a repeat);
 * `keysOf` gives the receipt keys the preset reads from items (by default, the items as text).
 */
function rebatch<I>(
  items: readonly [first: I, repeated: I, added: I],
  send: (batch: readonly I[], repeated?: I) => Delivery,
  keysOf: (batch: readonly I[]) => string[] = (batch) => batch.map(String),
): Pick<BatchFixture, 'itemIds' | 'newItemId' | 'delivery' | 'rebatched'> {
  const [first, repeated, added] = items;
  return {
    itemIds: keysOf([first, repeated]),
    newItemId: keysOf([added])[0]!,
    delivery: () => send([first, repeated]),
    rebatched: () => send([repeated, added], repeated),
  };
}

const accepted: Answer = {
  kind: 'text',
  headers: { 'content-type': 'text/plain' },
  value: '[accepted]',
};
const received: Answer = { kind: 'json', value: { received: true } };

export const batchFixtures: readonly BatchFixture[] = [
  {
    name: 'sendgrid',
    preset: () => providers.sendgrid({ publicKey: sendgrid().publicKey }),
    ...rebatch(['sg-evt-1', 'sg-evt-2', 'sg-evt-3'], (ids) =>
      sendgrid().batch(sendgridEvents(ids)),
    ),
    answer: received,
  },
  {
    name: 'hubspot (a retry raises each attemptNumber)',
    preset: () => providers.hubspot({ clientSecret: HUBSPOT_SECRET, targetUrl: url }),
    ...rebatch(
      [1, 2, 3],
      (ids, repeated) =>
        hubspot().batch(hubspotEvents(ids.map((id) => [id, id === repeated ? 1 : 0]))),
      (ids) => ids.map((id) => `10:20:${id}`),
    ),
    answer: received,
  },
  {
    name: 'adyen',
    preset: () => providers.adyen({ hmacKey: ADYEN_KEY }),
    ...rebatch<AdyenItem>(
      [
        ['1000000000000001', 'AUTHORISATION'],
        ['1000000000000002', 'CAPTURE'],
        ['1000000000000003', 'REFUND'],
      ],
      (items) => adyen().batch(adyenItems(items)),
      (items) => items.map(([pspReference, eventCode]) => `${pspReference}:${eventCode}:true`),
    ),
    answer: accepted,
  },
  {
    name: 'meta',
    preset: () => providers.meta({ appSecret: META_SECRET, verifyToken: 'conformance-token' }),
    ...rebatch(['wamid.conformance.1', 'wamid.conformance.2', 'wamid.conformance.3'], (ids) =>
      meta().batch(metaChanges(ids), { entryId: 'waba-1' }),
    ),
    answer: { kind: 'text', value: 'EVENT_RECEIVED' },
    handshake: {
      request: () => meta().challenge('1158201444'),
      forgedStatus: 403,
      replay: (answer) => ({
        body: answer,
        headers: { 'x-hub-signature-256': `sha256=${answer}` },
      }),
    },
  },
  {
    name: 'mandrill (a form field of events, keyed on their content)',
    preset: () => providers.mandrill({ webhookKey: MANDRILL_KEY, webhookUrl: url }),
    ...rebatch(
      [1765022400, 1765022401, 1765022402],
      (times) => mandrill().batch(times.map((ts) => mandrillEvent(ts))),
      (times) => times.map((ts) => mandrillKey(ts)),
    ),
    answer: received,
  },
  {
    name: 'auth0 (a log stream as a JSON array; the token is the Authorization header)',
    preset: () => providers.auth0({ authorization: AUTH0_TOKEN }),
    // JSON lines (Auth0's default) is no JSON a parser reads: the suite's apps parse JSON.
    ...rebatch(['90020261201100000001', '90020261201100000002', '90020261201100000003'], (ids) =>
      auth0().batch(auth0Logs(ids), ARRAY),
    ),
    answer: received,
  },
  {
    name: 'okta',
    preset: () => providers.okta({ secret: OKTA_SECRET }),
    ...rebatch(['okta-uuid-1', 'okta-uuid-2', 'okta-uuid-3'], (ids) =>
      okta().batch(oktaEvents(ids)),
    ),
    answer: received,
    handshake: {
      request: () => okta().challenge('okta-challenge-conformance'),
      forgedStatus: 401,
      replay: (answer) => ({ body: answer, headers: { authorization: answer } }),
    },
  },
  {
    name: 'microsoft-graph (keys are digests of each change)',
    preset: () => providers.microsoftGraph({ clientState: GRAPH_STATE }),
    ...rebatch(['m1', 'm2', 'm3'], (ids) => graph().batch(graphNotes(ids)), graphKeys),
    answer: received,
    postHandshake: {
      request: () => graph().validation('conformance validation token'),
      replay: (answer) => ({
        body: JSON.stringify({ value: [{ ...graphNotes(['m9'])[0], clientState: answer }] }),
        headers: {},
      }),
    },
  },
  {
    name: 'azure-event-grid (the secret in the URL query)',
    preset: () => providers.azureEventGrid({ secret: GRID_SECRET }),
    ...rebatch(['grid-1', 'grid-2', 'grid-3'], (ids) => grid().batch(gridEvents(ids))),
    answer: received,
    postHandshake: {
      request: () => grid().validation('conformance-validation-code'),
      // The answer as the URL secret: a delivery carries its secret in the query.
      replay: (answer) => ({
        body: JSON.stringify(gridEvents(['grid-9'])),
        headers: {},
        path: `/hook?code=${encodeURIComponent(answer)}`,
      }),
    },
  },
  {
    name: 'line (a redelivered event is marked isRedelivery)',
    preset: () => providers.line({ channelSecret: LINE_SECRET }),
    ...rebatch(
      ['01KCONFORMANCE000000000001', '01KCONFORMANCE000000000002', '01KCONFORMANCE000000000003'],
      (ids, repeated) => line().batch(lineEvents(ids.map((id) => [id, id === repeated]))),
    ),
    answer: received,
  },
  {
    name: 'gocardless (a bad signature answered 498)',
    preset: () => providers.gocardless({ secret: GOCARDLESS_SECRET }),
    ...rebatch(['EV0000CONFORM1', 'EV0000CONFORM2', 'EV0000CONFORM3'], (ids) =>
      gocardless().batch(gocardlessEvents(ids)),
    ),
    answer: received,
    forgedStatus: 498,
  },
];
