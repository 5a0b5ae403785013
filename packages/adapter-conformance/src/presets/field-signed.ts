/**
 * @module Fixtures of the presets whose provider signs with a plain hash or over chosen fields
 * rather than an HMAC of the body: Cloudinary (SHA-1 of body + timestamp + API secret, a timestamp
 * the preset checks, its window narrowed here to five minutes; no delivery id, so the receipt is
 * keyed on the body's digest) and Dropbox Sign (HMAC of the event's time and type in a multipart
 * form (sent urlencoded here), answered with a fixed text; its `callback_test` answered by the preset), and T-Bank (a SHA-256 `Token` of the sorted root values
 * and the terminal password, answered `OK`) and Robokassa (a hash of `OutSum:InvId:Password#2` and the
 * `Shp_` parameters, answered `OK{InvId}`); PagerDuty's `v1=` list rides along here as a row.
 */
import { createHash } from 'node:crypto';
import * as providers from '@webhook-idempotency/providers';
import * as signers from '@webhook-idempotency/providers/testing';
import { HOOK_URL, type PresetFixture } from './fixture';
import { secretFixtures } from './secret-rows';

const DROPBOX_KEY = 'conformance-dropbox-sign-api-key';
/** The events' time: Dropbox Sign's retries keep it, and the receipt's key holds it. */
const DROPBOX_AT = Date.parse('2026-12-06T12:00:00.000Z');
/**
 * Sent urlencoded (the same `json` field): the suite's apps parse JSON and urlencoded bodies, and
 * Dropbox Sign's multipart form is read from raw bytes no adapter keeps for multipart by default.
 * The multipart form itself is read by the preset's own tests.
 */
const dropbox = () =>
  signers.dropboxSign({ apiKey: DROPBOX_KEY, url: HOOK_URL, form: 'urlencoded' });

const TBANK_PASSWORD = 'conformance-tbank-password';
const ROBOKASSA_PASSWORD2 = 'conformance-robokassa-password-2';

const cloudinaryUpload = {
  notification_type: 'upload',
  public_id: 'conformance/cat',
  version: 1765022398,
};
const digest = (payload: object) =>
  createHash('sha256').update(JSON.stringify(payload)).digest('hex');

export const fieldSignedFixtures: readonly PresetFixture[] = [
  ...secretFixtures(
    {
      cloudinary: {
        id: `upload:${digest(cloudinaryUpload)}`,
        option: 'apiSecret',
        event: [cloudinaryUpload],
        // Its two hours narrowed, so that the suite's delivery of an hour ago is stale.
        preset: { toleranceSeconds: 300 },
        note: 'no delivery id: keyed on the body digest; a retry is stamped anew',
      },
    },
    true,
  ),
  ...secretFixtures(
    {
      pagerduty: {
        id: '01DEN3DAPKRM3UYEXIY6YVKYOD',
        event: [{ event: { id: '01DEN3DAPKRM3UYEXIY6YVKYOD', event_type: 'incident.triggered' } }],
        note: 'a v1= list, one per signing secret',
      },
    },
    false,
  ),
  {
    name: 'dropboxSign (a multipart form; every answer is the text Hello API Event Received)',
    preset: () => providers.dropboxSign({ apiKey: DROPBOX_KEY }),
    externalId: `signature_request_signed:${DROPBOX_AT / 1000}:sr_conformance:sig_conformance`,
    answer: { kind: 'text', value: 'Hello API Event Received' },
    timed: false,
    delivery: () =>
      dropbox().event(
        'signature_request_signed',
        { signature_request: { signature_request_id: 'sr_conformance' } },
        { at: DROPBOX_AT, metadata: { related_signature_id: 'sig_conformance' } },
      ),
    handshake: {
      request: () =>
        dropbox().callbackTest({ account: { account_id: 'acct_conformance' } }, { at: DROPBOX_AT }),
      externalId: `callback_test:${DROPBOX_AT / 1000}:acct_conformance`,
      // The answer in the place of the event's hash: refused.
      replay: (answer) => {
        const json = JSON.stringify({
          event: { event_time: '1', event_type: 'callback_test', event_hash: answer },
          account: { account_id: 'acct_conformance' },
        });
        return {
          body: new URLSearchParams({ json }).toString(),
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        };
      },
    },
  },
  ...secretFixtures(
    {
      tbank: {
        id: '7001234567:CONFIRMED:50000',
        option: 'password',
        secret: TBANK_PASSWORD,
        answer: { kind: 'text', value: 'OK' },
        event: [
          {
            TerminalKey: 'ConformanceDEMO',
            OrderId: 'order-42',
            Success: true,
            Status: 'CONFIRMED',
            PaymentId: 7001234567,
            ErrorCode: '0',
            Amount: 50000,
            Data: { Source: 'conformance' },
          },
        ],
        note: 'a Token over the sorted root values; every answer is the text OK',
      },
      robokassa: {
        id: '450009',
        option: 'password2',
        secret: ROBOKASSA_PASSWORD2,
        answer: { kind: 'text', value: 'OK450009' },
        event: [{ OutSum: '100.000000', InvId: 450009, Shp_order: 'order-42' }],
        note: 'a form signed over OutSum:InvId:Password#2:Shp_…; every answer is OK{InvId}',
      },
    },
    false,
  ),
];
