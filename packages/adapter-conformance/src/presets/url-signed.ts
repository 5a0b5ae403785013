/**
 * @module Fixtures of the presets whose provider signs the URL it calls (Square, Twilio's form
 * posts) or a query parameter of it (Mercado Pago): the kit signs `https://example.com/hook`, the
 * URL the presets are given for the suite's `/hook`.
 */
import { createHash } from 'node:crypto';
import * as providers from '@webhook-idempotency/providers';
import * as signers from '@webhook-idempotency/providers/testing';
import { HOOK_URL, type PresetFixture } from './fixture';
import { secretFixtures } from './secret-rows';

const url = HOOK_URL;
const TWILIO_TOKEN = 'conformance-twilio-auth-token';
const twilio = () => signers.twilio({ authToken: TWILIO_TOKEN, url });

/**
 * A Twilio voice request without I-Twilio-Idempotency-Token (a `<Gather>` action): keyed on its
 * CallSid and the first 32 hex characters of the SHA-256 of the URL, a newline, and the sorted
 * parameters form-encoded, as docs/providers.md#twilio says. Sent in reverse order.
 */
const twilioGather: Array<[string, string]> = [
  ['CallSid', 'CA0123456789abcdef0123456789abcdef'],
  ['CallStatus', 'in-progress'],
  ['Digits', '1'],
  ['From', '+15551234567'],
];
const twilioGatherKey = `CA0123456789abcdef0123456789abcdef:${createHash('sha256')
  .update(`${HOOK_URL}\n${new URLSearchParams(twilioGather)}`)
  .digest('hex')
  .slice(0, 32)}`;

export const urlSignedFixtures: readonly PresetFixture[] = [
  {
    name: 'square',
    preset: () =>
      providers.square({ signatureKey: 'conformance square key', notificationUrl: HOOK_URL }),
    externalId: 'sq-evt-conformance',
    timed: false,
    delivery: () =>
      signers
        .square({ signatureKey: 'conformance square key', notificationUrl: HOOK_URL })
        .event({ type: 'payment.updated', event_id: 'sq-evt-conformance' }),
  },
  {
    name: 'twilio (a form body)',
    preset: () => providers.twilio({ authToken: TWILIO_TOKEN, baseUrl: 'https://example.com' }),
    externalId: 'twilio-idem-conformance',
    timed: false,
    delivery: () =>
      twilio().event(
        [
          ['MessageSid', 'SMconformance'],
          ['SmsStatus', 'received'],
          ['Body', 'Hello & welcome, 100% + more'],
          ['From', '+15551234567'],
        ],
        { idempotencyToken: 'twilio-idem-conformance' },
      ),
  },
  {
    name: 'twilio voice (no idempotency token: the signed request is the key)',
    preset: () => providers.twilio({ authToken: TWILIO_TOKEN, baseUrl: 'https://example.com' }),
    externalId: twilioGatherKey,
    timed: false,
    delivery: () => twilio().event([...twilioGather].reverse(), { idempotencyToken: null }),
  },
  ...secretFixtures(
    {
      mercadopago: {
        id: '2026120401:mp-request-conformance',
        note: 'data.id in the query',
        event: [
          { id: 1, type: 'payment', action: 'payment.updated', data: { id: '2026120401' } },
          { requestId: 'mp-request-conformance' },
        ],
      },
    },
    false,
  ),
];
