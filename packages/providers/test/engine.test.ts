/** The presets driven through the real HTTP engine: the answers a provider actually gets back. */
import { createHmac } from 'node:crypto';
import { InMemoryStore, type HttpRequest } from '@webhook-idempotency/core';
import * as providers from '@webhook-idempotency/providers';
import { createEngine, type Decision } from '@webhook-idempotency/core/adapter';
import { basic, formRequest, jsonRequest } from './helpers';

const respond = (decision: Decision) => {
  if (decision.action !== 'respond') throw new Error(`expected respond, got ${decision.action}`);
  return {
    status: decision.response.status,
    json: JSON.parse(decision.response.body.toString()),
    replayed: decision.replayed,
  };
};
const run = (decision: Decision) => {
  if (decision.action !== 'run') throw new Error(`expected run, got ${decision.action}`);
  return decision.run;
};
const answer = (value: unknown) => ({
  status: 200,
  headers: { 'content-type': 'application/json' },
  body: Buffer.from(JSON.stringify(value)),
});

describe('payme through the engine', () => {
  const KEY = 'cash-desk-key-0123456789abcdef012345';
  const auth = { authorization: basic('Paycom', KEY) };
  const TX = '5305e3bab097f420a62ced0b';
  const create = (rpcId: number, headers: Record<string, string> = auth): HttpRequest =>
    jsonRequest(
      {
        method: 'CreateTransaction',
        params: { id: TX, time: 1399114284039, amount: 500000, account: { order_id: '1042' } },
        id: rpcId,
      },
      { headers, parsed: true },
    );

  function setup() {
    const store = new InMemoryStore();
    return { store, engine: createEngine({ store, preset: providers.payme({ password: KEY }) }) };
  }

  it('runs once, replays with the current JSON-RPC id, and never leaves HTTP 200', async () => {
    const { engine } = setup();
    const first = run(await engine.begin(create(1)));
    expect(
      await first.finish(
        answer({ result: { create_time: 1399114284039, transaction: '5123', state: 1 }, id: 1 }),
      ),
    ).toBeNull();

    const again = respond(await engine.begin(create(2)));
    expect(again).toEqual({
      status: 200,
      replayed: true,
      json: { result: { create_time: 1399114284039, transaction: '5123', state: 1 }, id: 2 },
    });
  });

  it('answers a concurrent duplicate with JSON-RPC -32400 inside HTTP 200', async () => {
    const { engine } = setup();
    run(await engine.begin(create(1)));
    expect(respond(await engine.begin(create(2)))).toMatchObject({
      status: 200,
      json: { error: { code: -32400 }, id: 2 },
    });
  });

  it('answers bad credentials with JSON-RPC -32504 inside HTTP 200 and writes no receipt', async () => {
    const { engine, store } = setup();
    expect(
      respond(await engine.begin(create(3, { authorization: basic('Paycom', 'wrong') }))),
    ).toMatchObject({ status: 200, json: { error: { code: -32504 }, id: 3 } });
    expect(
      await store.find(
        { provider: 'payme', externalId: `CreateTransaction:${TX}` },
        { now: Date.now() },
      ),
    ).toBeNull();
  });

  it('lets CheckTransaction through unguarded, after the auth check', async () => {
    const { engine } = setup();
    const check = (headers: Record<string, string>) =>
      jsonRequest({ method: 'CheckTransaction', params: { id: TX }, id: 4 }, { headers });
    expect((await engine.begin(check(auth))).action).toBe('pass');
    expect(respond(await engine.begin(check({})))).toMatchObject({
      json: { error: { code: -32504 } },
    });
  });
});

describe('click through the engine', () => {
  // Same literal vector as click.test.ts (md5 derived by hand from the documented formula).
  const complete = {
    click_trans_id: '2263123456',
    service_id: '23456',
    click_paydoc_id: '3712345678',
    merchant_trans_id: '1042',
    merchant_prepare_id: '77',
    amount: '15000.00',
    action: '1',
    error: '0',
    error_note: 'Success',
    sign_time: '2024-05-14 10:31:40',
    sign_string: '3827664d47c371f05983f01670c89403',
  };

  it('answers a repeated successful Complete with -4 and a bad signature with -1, both HTTP 200', async () => {
    const engine = createEngine({
      store: new InMemoryStore(),
      preset: providers.click({ secretKey: 'Xq7dVb2Lk9pR4sT1' }),
    });
    const first = run(await engine.begin(formRequest(complete)));
    await first.finish(
      answer({
        click_trans_id: 2263123456,
        merchant_trans_id: '1042',
        merchant_confirm_id: 91,
        error: 0,
        error_note: 'Success',
      }),
    );
    expect(respond(await engine.begin(formRequest(complete)))).toMatchObject({
      status: 200,
      replayed: true,
      json: { error: -4, merchant_confirm_id: 91 },
    });
    expect(respond(await engine.begin(formRequest({ ...complete, amount: '1.00' })))).toMatchObject(
      { status: 200, json: { error: -1 } },
    );
  });
});

describe('stripe through the engine', () => {
  it('refuses a bad signature with 401 and a missing event id with 400', async () => {
    const engine = createEngine({
      store: new InMemoryStore(),
      preset: providers.stripe({ secret: 'whsec_test' }),
    });
    const bad = await engine.begin(
      jsonRequest({ id: 'evt_1' }, { headers: { 'stripe-signature': 't=1,v1=00' } }),
    );
    expect(bad.action === 'respond' && bad.response.status).toBe(401);

    const body = JSON.stringify({ object: 'event', type: 'ping' });
    const t = Math.floor(Date.now() / 1000);
    const v1 = createHmac('sha256', 'whsec_test').update(`${t}.${body}`).digest('hex');
    const keyless = await engine.begin(
      jsonRequest(body, { headers: { 'stripe-signature': `t=${t},v1=${v1}` } }),
    );
    expect(keyless.action === 'respond' && keyless.response.status).toBe(400);
    expect(keyless.action === 'respond' && keyless.response.body.toString()).toContain(
      'event id in the body',
    );
  });
});
