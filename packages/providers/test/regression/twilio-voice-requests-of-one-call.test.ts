/**
 * Twilio voice: the requests of one call repeat its `CallSid` and `CallStatus` (`in-progress`
 * for every `<Gather>`, `<Record>` or `<Dial>` action), so keyed on those two, the second
 * `<Gather>` action of a call, validly signed and different, was refused 422 as a mismatch
 * without reaching the handler. Without `I-Twilio-Idempotency-Token`, the key is now a digest of
 * what Twilio signs (the URL it called and its sorted parameters): distinct requests get distinct
 * keys, and a retry, which Twilio re-sends identically, gets the first one's answer. Every request
 * here is signed by the `twilio` SDK and checked by its `validateRequest`.
 */
import { getExpectedTwilioSignature, validateRequest } from 'twilio/lib/webhooks/webhooks';
import { type HttpRequest, InMemoryStore } from '@webhook-idempotency/core';
import { createEngine, type Decision } from '@webhook-idempotency/core/adapter';
import { twilio } from '../../src';
import { makeRequest } from '../helpers';

const TOKEN = 'twilio-auth-token-of-ours-0123456';
const BASE = 'https://example.com';
const CALL = 'CA0123456789abcdef0123456789abcdef';

/** The parameters Twilio posts with every voice request of one call. */
const callParams: Array<[string, string]> = [
  ['AccountSid', 'AC0123456789abcdef0123456789abcdef'],
  ['ApiVersion', '2010-04-01'],
  ['CallSid', CALL],
  ['CallStatus', 'in-progress'],
  ['Called', '+15557654321'],
  ['Caller', '+15551234567'],
  ['Direction', 'inbound'],
  ['From', '+15551234567'],
  ['To', '+15557654321'],
];

/** A voice request as Twilio sends it: form fields, signed by the SDK, checked by the SDK. */
function voice(
  path: string,
  extra: Array<[string, string]>,
  order: 'as-sent' | 'reversed' = 'as-sent',
  headers: Record<string, string> = {},
) {
  const pairs = [...callParams, ...extra];
  const params = Object.fromEntries(pairs);
  const signature = getExpectedTwilioSignature(TOKEN, BASE + path, params);
  expect(validateRequest(TOKEN, signature, BASE + path, params)).toBe(true);
  const sent = order === 'reversed' ? [...pairs].reverse() : pairs;
  return makeRequest({
    url: path,
    rawBody: new URLSearchParams(sent).toString(),
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-twilio-signature': signature,
      ...headers,
    },
  });
}

const twiml = (text: string) => ({
  status: 200,
  headers: { 'content-type': 'text/xml' },
  body: Buffer.from(`<Response><Say>${text}</Say></Response>`),
});

describe('twilio voice: the requests of one call', () => {
  const preset = twilio({ authToken: TOKEN, baseUrl: BASE });

  function setup() {
    const engine = createEngine({ store: new InMemoryStore(), preset });
    const ran: string[] = [];
    const deliver = async (request: HttpRequest, label: string): Promise<Decision> => {
      expect(await preset.verify?.(request)).toBe(true);
      const decision = await engine.begin(request);
      if (decision.action === 'run') {
        ran.push(label);
        await decision.run.finish(twiml(label));
      }
      return decision;
    };
    return { deliver, ran };
  }

  it('runs two <Gather> actions of one call, each once, and replays the retry of the first', async () => {
    const { deliver, ran } = setup();
    const first = voice('/voice/gather', [['Digits', '1']]);
    const second = voice('/voice/gather', [['Digits', '2']]);

    expect((await deliver(first, 'menu 1')).action).toBe('run');
    const next = await deliver(second, 'menu 2');
    // Not a 422 mismatch: the handler gets the second action.
    expect(next.action === 'respond' ? next.response.status : next.action).toBe('run');
    expect(preset.key(first)).not.toBe(preset.key(second));
    expect(ran).toEqual(['menu 1', 'menu 2']);

    // Twilio's retry re-sends the request it signed: the first answer, not a second run.
    const retry = await deliver(voice('/voice/gather', [['Digits', '1']]), 'retry');
    expect(retry).toMatchObject({ action: 'respond', replayed: true });
    if (retry.action === 'respond')
      expect(retry.response.body.toString()).toBe('<Response><Say>menu 1</Say></Response>');
    expect(ran).toEqual(['menu 1', 'menu 2']);
  });

  it('keeps apart the incoming call, an action at another URL, a recording and the status callback', async () => {
    const { deliver, ran } = setup();
    const requests: Array<[string, HttpRequest]> = [
      ['incoming', voice('/voice', [])],
      ['gather at /voice/menu', voice('/voice/menu', [['Digits', '1']])],
      ['gather at /voice/confirm', voice('/voice/confirm', [['Digits', '1']])],
      [
        'record action',
        voice('/voice/recorded', [
          ['RecordingSid', 'RE0123456789abcdef0123456789abcdef'],
          ['RecordingUrl', 'https://api.twilio.com/recordings/RE01'],
          ['RecordingDuration', '7'],
        ]),
      ],
      ['queue wait 1', voice('/voice/wait', [['QueueTime', '5']])],
      ['queue wait 2', voice('/voice/wait', [['QueueTime', '35']])],
    ];
    for (const [label, request] of requests)
      expect((await deliver(request, label)).action).toBe('run');
    expect(ran).toEqual(requests.map(([label]) => label));
    const keys = requests.map(([, request]) => preset.key(request));
    expect(new Set(keys).size).toBe(requests.length);
    // The key names the resource it is about, readable in the dashboard.
    expect(keys[0]).toMatch(new RegExp(`^${CALL}:[0-9a-f]{32}$`));
    expect(keys[3]).toMatch(/^RE0123456789abcdef0123456789abcdef:[0-9a-f]{32}$/);
  });

  it('treats a retry whose form fields come in another order as the same request', async () => {
    const { deliver, ran } = setup();
    await deliver(voice('/voice/gather', [['Digits', '3']]), 'first');
    const reordered = voice('/voice/gather', [['Digits', '3']], 'reversed');
    expect(await deliver(reordered, 'again')).toMatchObject({ action: 'respond', replayed: true });
    expect(ran).toEqual(['first']);
  });

  it('still keys on I-Twilio-Idempotency-Token when Twilio sends it', () => {
    const request = voice('/voice/gather', [['Digits', '1']], 'as-sent', {
      'i-twilio-idempotency-token': 'idem-0042',
    });
    expect(preset.key(request)).toBe('idem-0042');
  });
});
