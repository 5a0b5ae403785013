/**
 * @module Sample payloads of `send` for the presets beyond the first seven: one realistic event
 * each, written for this command, made from the delivery's id (so each send is a new event unless
 * `--id` repeats one) with no field read from the clock. Batched providers get a one-item batch
 * (Meta: one change); Twilio's sample is its form fields; Braintree's a kind and subject.
 */
import { numeric, type Sample } from './samples';

const AT = '2025-12-01T22:00:00Z';
const AT_MS = 1_764_626_400_000;

/** One sample, under its event name. */
const one = (event: string, sample: Sample): Record<string, Sample> => ({ [event]: sample });

/** The samples of each preset that has one here, by preset factory name. */
export const MORE_SAMPLES: Readonly<Record<string, Readonly<Record<string, Sample>>>> = {
  standardWebhooks: one('invoice.paid', (id) => ({
    type: 'invoice.paid',
    timestamp: AT,
    data: { invoice_id: `in_${id}`, amount: 4900, currency: 'eur' },
  })),
  clerk: one('user.created', (id) => ({
    type: 'user.created',
    object: 'event',
    data: { id: `user_${id}`, email_addresses: [{ email_address: 'jenny@example.com' }] },
  })),
  resend: one('email.delivered', (id) => ({
    type: 'email.delivered',
    created_at: AT,
    data: { email_id: id, to: ['jenny@example.com'], subject: 'Your receipt' },
  })),
  paddle: one('transaction.completed', (id) => ({
    event_id: `evt_${id}`,
    event_type: 'transaction.completed',
    occurred_at: AT,
    notification_id: `ntf_${id}`,
    data: { id: `txn_${id}`, status: 'completed', currency_code: 'USD' },
  })),
  discord: one('APPLICATION_COMMAND', (id) => ({
    id: String(1_000_000_000_000 + numeric(id)),
    application_id: '1100000000000000000',
    type: 2,
    version: 1,
    token: `token-${id}`,
    data: { id: '1200000000000000000', name: 'refund', type: 1 },
  })),
  sendgrid: one('delivered', (id) => [
    {
      email: 'jenny@example.com',
      timestamp: AT_MS / 1000,
      event: 'delivered',
      sg_event_id: `sg_${id}`,
      sg_message_id: `msg_${id}.filter0001`,
    },
  ]),
  hubspot: one('contact.creation', (id) => [
    {
      eventId: numeric(id),
      subscriptionId: 2_146_231,
      portalId: 62_515,
      appId: 1_160_452,
      occurredAt: AT_MS,
      subscriptionType: 'contact.creation',
      attemptNumber: 0,
      objectId: 123,
      changeSource: 'CRM',
    },
  ]),
  adyen: one('AUTHORISATION', (id) => [
    {
      pspReference: `PSP${numeric(id)}`,
      merchantAccountCode: 'ShopEU',
      merchantReference: 'order-6735',
      amount: { value: 4900, currency: 'EUR' },
      eventCode: 'AUTHORISATION',
      eventDate: AT,
      success: 'true',
      paymentMethod: 'visa',
    },
  ]),
  meta: one('messages', (id) => [
    {
      field: 'messages',
      value: {
        messaging_product: 'whatsapp',
        metadata: { display_phone_number: '15550000000', phone_number_id: '1234567890' },
        messages: [
          {
            from: '15551234567',
            id: `wamid.${id}`,
            timestamp: '1764626400',
            type: 'text',
            text: { body: 'Hi' },
          },
        ],
      },
    },
  ]),
  square: one('payment.updated', (id) => ({
    merchant_id: 'ML0000SAMPLE',
    type: 'payment.updated',
    event_id: id,
    created_at: AT,
    data: { type: 'payment', id: `pay_${id}`, object: { payment: { status: 'COMPLETED' } } },
  })),
  twilio: one('message', (id) => ({
    MessageSid: `SM${id}`,
    AccountSid: 'AC00000000000000000000000000000000',
    From: '+15551234567',
    To: '+15557654321',
    Body: 'Hello',
    SmsStatus: 'received',
  })),
  mercadopago: one('payment.created', (id) => ({
    id: numeric(id),
    type: 'payment',
    action: 'payment.created',
    date_created: AT,
    data: { id: String(numeric(id)) },
  })),
  postmark: one('Delivery', (id) => ({
    RecordType: 'Delivery',
    MessageID: id,
    Recipient: 'jenny@example.com',
    DeliveredAt: AT,
    ServerID: 23,
    MessageStream: 'outbound',
  })),
  braintree: one('subscription_charged_successfully', (id) => ({
    kind: 'subscription_charged_successfully',
    subject: `<subscription><id>${id}</id></subscription>`,
  })),
  wise: one('transfers#state-change', (id) => ({
    data: {
      resource: { type: 'transfer', id: numeric(id) },
      current_state: 'outgoing_payment_sent',
    },
    subscription_id: 'f2264fe5-a0f4-4f2b-9f4b-1b5c4c9b4b63',
    event_type: 'transfers#state-change',
    schema_version: '2.0.0',
    sent_at: AT,
  })),
  paypal: one('PAYMENT.CAPTURE.COMPLETED', (id) => ({
    id: `WH-${id}`,
    event_type: 'PAYMENT.CAPTURE.COMPLETED',
    create_time: AT,
    resource: {
      id: `CAP-${id}`,
      status: 'COMPLETED',
      amount: { value: '49.00', currency_code: 'EUR' },
    },
  })),
  calendly: one('invitee.created', (id) => ({
    event: 'invitee.created',
    created_at: AT,
    payload: {
      uri: `https://api.calendly.com/scheduled_events/EV0001/invitees/${id}`,
      email: 'jenny@example.com',
      status: 'active',
    },
  })),
  airwallex: one('payment_intent.succeeded', (id) => ({
    id,
    name: 'payment_intent.succeeded',
    account_id: 'acct_sample',
    created_at: AT,
    data: { object: { id: `int_${id}`, amount: 49, currency: 'USD', status: 'SUCCEEDED' } },
  })),
  paystack: one('charge.success', (id) => ({
    event: 'charge.success',
    data: { id: numeric(id), reference: id, amount: 490000, currency: 'NGN', status: 'success' },
  })),
  sentry: one('issue.created', (id) => ({
    action: 'created',
    installation: { uuid: 'a8e5d37a-696c-4c54-adb5-b3f28d64c7de' },
    data: { issue: { id: String(numeric(id)), title: 'TypeError: amount is undefined' } },
  })),
  linear: one('Issue', (id) => ({
    action: 'create',
    type: 'Issue',
    createdAt: AT,
    data: { id, identifier: 'ENG-42', title: 'Retry the ledger call once' },
    organizationId: 'org-sample',
  })),
  zoom: one('meeting.started', (id) => ({
    event: 'meeting.started',
    event_ts: 1_764_626_400_000 + (numeric(id) % 1_000_000),
    payload: { account_id: 'acct-sample', object: { id: String(numeric(id)), topic: 'Standup' } },
  })),
  twitch: one('channel.follow', (id) => ({
    subscription: { id, type: 'channel.follow', version: '2', status: 'enabled' },
    event: { user_id: '1337', user_login: 'viewer', broadcaster_user_id: '1970', followed_at: AT },
  })),
  mailgun: one('delivered', (id) => ({
    id,
    event: 'delivered',
    timestamp: 1_764_626_400,
    recipient: 'jenny@example.com',
    message: { headers: { 'message-id': `${id}@mg.example.com` } },
  })),
  hmac: one('event', (id) => ({ id, type: 'order.paid', data: { order_id: '6735' } })),
  telnyx: one('message.received', (id) => ({
    data: {
      record_type: 'event',
      id,
      event_type: 'message.received',
      occurred_at: AT,
      payload: { direction: 'inbound', text: 'Hello', from: { phone_number: '+18445550001' } },
    },
    meta: { attempt: 1, delivered_to: 'https://example.com/webhooks/telnyx' },
  })),
  qstash: one('message', (id) => ({ order_id: `ord_${id}`, status: 'paid', amount: 4900 })),
  vonage: one('delivered', (id) => ({
    message_uuid: id,
    to: '447700900000',
    from: '447700900001',
    timestamp: AT,
    status: 'delivered',
    channel: 'sms',
  })),
  plaid: one('SYNC_UPDATES_AVAILABLE', (id) => ({
    webhook_type: 'TRANSACTIONS',
    webhook_code: 'SYNC_UPDATES_AVAILABLE',
    item_id: id,
    initial_update_complete: true,
    historical_update_complete: false,
    environment: 'sandbox',
  })),
};
