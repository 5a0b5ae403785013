/**
 * @module Sample payloads of `send` for the presets of the second round (Standard Webhooks senders,
 * static-secret and field-signed providers): one realistic event each, written for this command,
 * made from the delivery's id with no field read from the clock. Batched providers get a one-item
 * batch; T-Bank and Robokassa their notification's fields; Google Calendar sends no body (the
 * event names the resource state in its headers).
 */
import { numeric, type Sample } from './samples';

const AT = '2025-12-01T22:00:00Z';
const AT_S = 1_764_626_400;

/** One sample, under its event name. */
const one = (event: string, sample: Sample): Record<string, Sample> => ({ [event]: sample });

/** A Standard Webhooks payload: `type`, `timestamp` and the event's `data`. */
const standard = (type: string, data: (id: string) => object) =>
  one(type, (id) => ({ type, timestamp: AT, data: data(id) }));

/** The samples of each preset that has one here, by preset factory name. */
export const SECOND_SAMPLES: Readonly<Record<string, Readonly<Record<string, Sample>>>> = {
  openai: one('response.completed', (id) => ({
    object: 'event',
    id: `evt_${id}`,
    type: 'response.completed',
    created_at: AT_S,
    data: { id: `resp_${id}` },
  })),
  replicate: one('succeeded', (id) => ({
    id: `pred_${id}`,
    model: 'stability-ai/sdxl',
    status: 'succeeded',
    created_at: AT,
    output: ['https://replicate.delivery/sample.png'],
  })),
  stytch: standard('direct.user.create', (id) => ({
    user_id: `user-test-${id}`,
    status: 'active',
  })),
  polar: standard('order.paid', (id) => ({ id: `ord_${id}`, amount: 4900, currency: 'usd' })),
  dodopayments: one('payment.succeeded', (id) => ({
    business_id: 'bus_sample',
    type: 'payment.succeeded',
    timestamp: AT,
    data: { payload_type: 'Payment', payment_id: `pay_${id}`, total_amount: 4900, currency: 'USD' },
  })),
  supabaseAuthHooks: one('send_email', (id) => ({
    user: { id, email: 'jenny@example.com' },
    email_data: {
      token: '123456',
      email_action_type: 'signup',
      redirect_to: 'https://example.com',
    },
  })),
  chargebee: one('payment_succeeded', (id) => ({
    id: `ev_${id}`,
    occurred_at: AT_S,
    object: 'event',
    event_type: 'payment_succeeded',
    api_version: 'v2',
    content: { transaction: { id: `txn_${id}`, amount: 4900, currency_code: 'USD' } },
  })),
  auth0: one('s', (id) => [
    { log_id: `9000${numeric(id)}`, data: { date: AT, type: 's', user_name: 'jenny@example.com' } },
  ]),
  okta: one('user.session.start', (id) => [
    { uuid: id, eventType: 'user.session.start', published: AT, displayMessage: 'User login' },
  ]),
  microsoftGraph: one('created', (id) => [
    {
      subscriptionId: '7f105c7d-2dc5-4530-97cd-4e7ae6534c07',
      changeType: 'created',
      resource: `Users/jenny/Messages/${id}`,
      tenantId: '84bd8158-6d4d-4958-8b9f-9d6445542f95',
      subscriptionExpirationDateTime: '2025-12-03T22:00:00Z',
    },
  ]),
  azureEventGrid: one('Microsoft.Storage.BlobCreated', (id) => [
    {
      id,
      topic:
        '/subscriptions/0000/resourceGroups/rg/providers/Microsoft.Storage/storageAccounts/shop',
      subject: '/blobServices/default/containers/invoices/blobs/6735.pdf',
      eventType: 'Microsoft.Storage.BlobCreated',
      eventTime: AT,
      data: { api: 'PutBlob', contentType: 'application/pdf', contentLength: 52_400 },
      dataVersion: '1',
      metadataVersion: '1',
    },
  ]),
  googleCalendar: one('exists', () => ({})),
  cloudinary: one('upload', (id) => ({
    notification_type: 'upload',
    public_id: `invoices/${id}`,
    asset_id: `a_${id}`,
    resource_type: 'image',
    created_at: AT,
  })),
  dropboxSign: one('signature_request_signed', (id) => ({
    signature_request: { signature_request_id: id, title: 'Contract 6735', is_complete: false },
  })),
  tbank: one('CONFIRMED', (id) => ({
    TerminalKey: 'TinkoffBankTest',
    OrderId: `order-${id}`,
    Success: true,
    Status: 'CONFIRMED',
    PaymentId: numeric(id),
    ErrorCode: '0',
    Amount: 490000,
  })),
  robokassa: one('result', (id) => ({
    OutSum: '4900.00',
    InvId: numeric(id) % 2_000_000_000,
    Shp_order: '6735',
  })),
  mandrill: one('send', (id) => [
    { event: 'send', _id: id, ts: AT_S, msg: { email: 'jenny@example.com', subject: 'Receipt' } },
  ]),
  pagerduty: one('incident.triggered', (id) => ({
    event: {
      id,
      event_type: 'incident.triggered',
      resource_type: 'incident',
      occurred_at: AT,
      data: { id: 'PGR0VU2', type: 'incident', title: 'Checkout error rate over 5%' },
    },
  })),
};
