/**
 * @module One genuine batch per batched preset (SendGrid, HubSpot, Adyen, Meta, Mandrill, Auth0,
 * Okta, Microsoft Graph, Azure Event Grid, LINE, GoCardless), signed by the test kit, with a
 * re-batch that repeats one item beside a new one, and Meta's and Okta's verification GETs: what
 * the batch cases send through every adapter.
 */
import { canonicalJson, sha256Hex } from '@webhook-idempotency/core/adapter';
import * as providers from '@webhook-idempotency/providers';
import * as signers from '@webhook-idempotency/providers/testing';
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
const adyenItems = (items: readonly [pspReference: string, eventCode: string][]) =>
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
    itemIds: ['sg-evt-1', 'sg-evt-2'],
    newItemId: 'sg-evt-3',
    delivery: () => sendgrid().batch(sendgridEvents(['sg-evt-1', 'sg-evt-2'])),
    rebatched: () => sendgrid().batch(sendgridEvents(['sg-evt-2', 'sg-evt-3'])),
    answer: received,
  },
  {
    name: 'hubspot (a retry raises each attemptNumber)',
    preset: () => providers.hubspot({ clientSecret: HUBSPOT_SECRET, targetUrl: url }),
    itemIds: ['10:20:1', '10:20:2'],
    newItemId: '10:20:3',
    delivery: () =>
      hubspot().batch(
        hubspotEvents([
          [1, 0],
          [2, 0],
        ]),
      ),
    rebatched: () =>
      hubspot().batch(
        hubspotEvents([
          [2, 1],
          [3, 0],
        ]),
      ),
    answer: received,
  },
  {
    name: 'adyen',
    preset: () => providers.adyen({ hmacKey: ADYEN_KEY }),
    itemIds: ['1000000000000001:AUTHORISATION:true', '1000000000000002:CAPTURE:true'],
    newItemId: '1000000000000003:REFUND:true',
    delivery: () =>
      adyen().batch(
        adyenItems([
          ['1000000000000001', 'AUTHORISATION'],
          ['1000000000000002', 'CAPTURE'],
        ]),
      ),
    rebatched: () =>
      adyen().batch(
        adyenItems([
          ['1000000000000002', 'CAPTURE'],
          ['1000000000000003', 'REFUND'],
        ]),
      ),
    answer: accepted,
  },
  {
    name: 'meta',
    preset: () => providers.meta({ appSecret: META_SECRET, verifyToken: 'conformance-token' }),
    itemIds: ['wamid.conformance.1', 'wamid.conformance.2'],
    newItemId: 'wamid.conformance.3',
    delivery: () =>
      meta().batch(metaChanges(['wamid.conformance.1', 'wamid.conformance.2']), {
        entryId: 'waba-1',
      }),
    rebatched: () =>
      meta().batch(metaChanges(['wamid.conformance.2', 'wamid.conformance.3']), {
        entryId: 'waba-1',
      }),
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
    itemIds: [mandrillKey(1765022400), mandrillKey(1765022401)],
    newItemId: mandrillKey(1765022402),
    delivery: () => mandrill().batch([mandrillEvent(1765022400), mandrillEvent(1765022401)]),
    rebatched: () => mandrill().batch([mandrillEvent(1765022401), mandrillEvent(1765022402)]),
    answer: received,
  },
  {
    name: 'auth0 (a log stream as a JSON array; the token is the Authorization header)',
    preset: () => providers.auth0({ authorization: AUTH0_TOKEN }),
    itemIds: ['90020261201100000001', '90020261201100000002'],
    newItemId: '90020261201100000003',
    // JSON lines (Auth0's default) is no JSON a parser reads: the suite's apps parse JSON.
    delivery: () =>
      auth0().batch(auth0Logs(['90020261201100000001', '90020261201100000002']), ARRAY),
    rebatched: () =>
      auth0().batch(auth0Logs(['90020261201100000002', '90020261201100000003']), ARRAY),
    answer: received,
  },
  {
    name: 'okta',
    preset: () => providers.okta({ secret: OKTA_SECRET }),
    itemIds: ['okta-uuid-1', 'okta-uuid-2'],
    newItemId: 'okta-uuid-3',
    delivery: () => okta().batch(oktaEvents(['okta-uuid-1', 'okta-uuid-2'])),
    rebatched: () => okta().batch(oktaEvents(['okta-uuid-2', 'okta-uuid-3'])),
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
    itemIds: graphKeys(['m1', 'm2']),
    newItemId: graphKeys(['m3'])[0]!,
    delivery: () => graph().batch(graphNotes(['m1', 'm2'])),
    rebatched: () => graph().batch(graphNotes(['m2', 'm3'])),
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
    itemIds: ['grid-1', 'grid-2'],
    newItemId: 'grid-3',
    delivery: () => grid().batch(gridEvents(['grid-1', 'grid-2'])),
    rebatched: () => grid().batch(gridEvents(['grid-2', 'grid-3'])),
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
    itemIds: ['01KCONFORMANCE000000000001', '01KCONFORMANCE000000000002'],
    newItemId: '01KCONFORMANCE000000000003',
    delivery: () =>
      line().batch(
        lineEvents([
          ['01KCONFORMANCE000000000001', false],
          ['01KCONFORMANCE000000000002', false],
        ]),
      ),
    rebatched: () =>
      line().batch(
        lineEvents([
          ['01KCONFORMANCE000000000002', true],
          ['01KCONFORMANCE000000000003', false],
        ]),
      ),
    answer: received,
  },
  {
    name: 'gocardless (a bad signature answered 498)',
    preset: () => providers.gocardless({ secret: GOCARDLESS_SECRET }),
    itemIds: ['EV0000CONFORM1', 'EV0000CONFORM2'],
    newItemId: 'EV0000CONFORM3',
    delivery: () => gocardless().batch(gocardlessEvents(['EV0000CONFORM1', 'EV0000CONFORM2'])),
    rebatched: () => gocardless().batch(gocardlessEvents(['EV0000CONFORM2', 'EV0000CONFORM3'])),
    answer: received,
    forgedStatus: 498,
  },
];
