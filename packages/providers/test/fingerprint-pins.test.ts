/**
 * Pinned fingerprints of the presets that compute their own (Payme, Click, Uzum). Stored receipts
 * hold these values: if one changes, a retry sent after an upgrade is refused as a
 * `FingerprintMismatch`. The hex values were computed by the code as it stood before issue 9 merged
 * the two `canonicalJson` copies; never update them to make a change pass.
 */
import { sha256Hex } from '@webhook-idempotency/core/adapter';
import { click, payme, telnyx, uzum } from '../src';
import { formRequest, jsonRequest } from './helpers';

/** JSON text with what a canonical form must get right: key order, escapes, unicode, numbers, `__proto__`, `toJSON` as data. */
const PAYME_TEXT = `{
  "id": 2032, "method": "CreateTransaction",
  "params": {
    "time": 1399114284039, "id": "5305e3bab097f420a62ced0b", "amount": 500000,
    "account": { "order_id": "1042", "Phone": "+998 90 123 45 67", "note": "O\\u02bbzbekiston \\u2713 \\"q\\" \\\\ \\u0001\\u2028" },
    "items": [ { "b": null, "a": [] }, 1e21, -0.5, 12.50, {}, [null, true, false] ],
    "__proto__": { "z": 1, "y": 2 },
    "toJSON": "data, not a method",
    "": "empty key", "é": 1, "e": 2, "Z": 3
  }
}`;

/** The same payload with other key order and whitespace: it must give the same fingerprint. */
const PAYME_REORDERED = `{"params":{"Z":3,"e":2,"é":1,"":"empty key","toJSON":"data, not a method","__proto__":{"y":2,"z":1},"items":[{"a":[],"b":null},1e+21,-0.5,12.5,{},[null,true,false]],"account":{"note":"Oʻzbekiston ✓ \\"q\\" \\\\ \\u0001\\u2028","Phone":"+998 90 123 45 67","order_id":"1042"},"amount":500000,"id":"5305e3bab097f420a62ced0b","time":1399114284039},"method":"CreateTransaction","id":99}`;

const PAYME_PIN = 'f43d3c715a423df8dfdd87e8ec53767a0bfd5ffa80ed77b2ccf1d1ab0d985f7e';

const CLICK_COMPLETE = {
  click_trans_id: '2263123456',
  service_id: '23456',
  click_paydoc_id: '3712345678',
  merchant_trans_id: 'заказ-1042 & more=yes',
  merchant_prepare_id: '77',
  amount: '15000.00',
  action: '1',
  error: '0',
  error_note: 'Success',
  sign_time: '2024-05-14 10:31:40',
  sign_string: '3827664d47c371f05983f01670c89403',
};
/** A Prepare has no `merchant_prepare_id`: the missing field is left out, not written as null. */
const { merchant_prepare_id: _none, ...CLICK_PREPARE } = { ...CLICK_COMPLETE, action: '0' };

const CLICK_COMPLETE_PIN = 'df70d303c7186906f558cb005f2e728c64f0a0e9ec87e94fad9d5aa6807c9447';
const CLICK_PREPARE_PIN = 'ccf445075f039f3192efcbbaa852894157ef45a4c083b80134fe3d2f4aace1b9';

const UZUM_TEXT = `{"serviceId":498,"timestamp":1715678400000,"transId":"3f0e0f6e-8a51-4a55-9a55-2f0a1c7e2b11",
  "params":{"account":"1042","extra":{"b":[1,2,{"d":null,"c":"ü"}],"a":1.25}},"amount":1500000}`;

const UZUM_PIN = '7a998f56b631324b59155e35ab81558a5bf793b68eb7966e973e6e9f92b7d535';

/** What each pin is the SHA-256 of, written out by hand: the canonical JSON of the fields each preset picks. */
const CANONICAL_TEXTS: [string, string][] = [
  [
    PAYME_PIN,
    '{"method":"CreateTransaction","params":{"":"empty key","Z":3,"__proto__":{"y":2,"z":1},' +
      '"account":{"Phone":"+998 90 123 45 67","note":"O\u02bbzbekiston \u2713 \\"q\\" \\\\ \\u0001\u2028","order_id":"1042"},' +
      '"amount":500000,"e":2,"id":"5305e3bab097f420a62ced0b","items":[{"a":[],"b":null},1e+21,-0.5,12.5,{},[null,true,false]],' +
      '"time":1399114284039,"toJSON":"data, not a method","\u00e9":1}}',
  ],
  [
    CLICK_COMPLETE_PIN,
    '{"action":"1","amount":"15000.00","click_paydoc_id":"3712345678","click_trans_id":"2263123456","error":"0",' +
      '"merchant_prepare_id":"77","merchant_trans_id":"заказ-1042 & more=yes","service_id":"23456"}',
  ],
  [
    CLICK_PREPARE_PIN,
    '{"action":"0","amount":"15000.00","click_paydoc_id":"3712345678","click_trans_id":"2263123456","error":"0",' +
      '"merchant_trans_id":"заказ-1042 & more=yes","service_id":"23456"}',
  ],
  [
    UZUM_PIN,
    '{"body":{"amount":1500000,"params":{"account":"1042","extra":{"a":1.25,"b":[1,2,{"c":"ü","d":null}]}},' +
      '"serviceId":498,"transId":"3f0e0f6e-8a51-4a55-9a55-2f0a1c7e2b11"},"operation":"create"}',
  ],
];

describe('pinned preset fingerprints (stored receipts depend on them)', () => {
  it('payme: the same value from the raw bytes and from the parsed body, whatever the key order or JSON-RPC id', () => {
    const preset = payme({ password: 'cash-desk-key' });
    expect(preset.fingerprint?.(jsonRequest(PAYME_TEXT))).toBe(PAYME_PIN);
    expect(preset.fingerprint?.(jsonRequest(PAYME_TEXT, { parsed: true, raw: false }))).toBe(
      PAYME_PIN,
    );
    expect(preset.fingerprint?.(jsonRequest(PAYME_REORDERED, { parsed: true, raw: false }))).toBe(
      PAYME_PIN,
    );
  });

  it('click: the same value from the raw form and from the parsed form', () => {
    const preset = click({ secretKey: 'secret' });
    expect(preset.fingerprint?.(formRequest(CLICK_COMPLETE))).toBe(CLICK_COMPLETE_PIN);
    expect(preset.fingerprint?.(formRequest(CLICK_COMPLETE, { parsed: true, raw: false }))).toBe(
      CLICK_COMPLETE_PIN,
    );
    expect(preset.fingerprint?.(formRequest(CLICK_PREPARE))).toBe(CLICK_PREPARE_PIN);
    expect(preset.fingerprint?.(formRequest(CLICK_PREPARE, { parsed: true, raw: false }))).toBe(
      CLICK_PREPARE_PIN,
    );
  });

  it('uzum: the same value from the raw bytes and from the parsed body, with or without a new timestamp', () => {
    const preset = uzum({ username: 'user', password: 'pass' });
    expect(preset.fingerprint?.(jsonRequest(UZUM_TEXT, { url: '/uzum/create' }))).toBe(UZUM_PIN);
    expect(
      preset.fingerprint?.(
        jsonRequest(UZUM_TEXT, { url: '/uzum/create', parsed: true, raw: false }),
      ),
    ).toBe(UZUM_PIN);
    const later = UZUM_TEXT.replace('1715678400000', '1715678460000');
    expect(
      preset.fingerprint?.(jsonRequest(later, { url: '/uzum/create', parsed: true, raw: false })),
    ).toBe(UZUM_PIN);
  });

  it.each(CANONICAL_TEXTS)(
    '%s is the SHA-256 of the canonical text written out by hand',
    (pin, text) => {
      expect(sha256Hex(text)).toBe(pin);
    },
  );
});

describe('pinned fingerprints of the signed-token presets', () => {
  /** A Telnyx event, with the `meta` a retry changes. */
  const TELNYX_TEXT =
    '{"data":{"record_type":"event","id":"b301ed3f","event_type":"message.received","payload":{"text":"hé"}},"meta":{"attempt":3,"delivered_to":"https://example.com/hooks"}}';
  /** The canonical text of its `data` alone, written out by hand. */
  const TELNYX_CANONICAL =
    '{"data":{"event_type":"message.received","id":"b301ed3f","payload":{"text":"hé"},"record_type":"event"}}';
  const TELNYX_PIN = 'b7cab3a363cd0133bca48ff2154f171a645ce0f6f168a64c1dc2ee2b5eaa96e9';

  it('telnyx: the body without meta, canonical', () => {
    const preset = telnyx({ publicKey: Buffer.alloc(32, 7).toString('base64') });
    expect(sha256Hex(TELNYX_CANONICAL)).toBe(TELNYX_PIN);
    expect(preset.fingerprint?.(jsonRequest(TELNYX_TEXT))).toBe(TELNYX_PIN);
  });
});
