/**
 * @module Sample payloads of `send`, written for this command: a few realistic events per common
 * provider, each made from the delivery's id so that every send is a new event unless `--id`
 * repeats one (and then the same bytes: no field depends on the clock).
 */

/** A sample: the payload of one event, made from the id the delivery gets. */
export type Sample = (id: string) => object;

/** A numeric id made from any id text (Telegram's `update_id`, Click's `click_trans_id`). */
export const numeric = (id: string): number => {
  if (/^\d{1,15}$/.test(id)) return Number(id);
  let n = 7;
  for (const char of id) n = (n * 31 + char.charCodeAt(0)) % 1_000_000_007;
  return n;
};

const CREATED = 1_764_626_400; // 2025-12-01T22:00:00Z: fixed, so a repeated id has the same bytes

const stripe: Record<string, Sample> = {
  'payment_intent.succeeded': (id) => ({
    id,
    object: 'event',
    api_version: '2025-11-17.clover',
    created: CREATED,
    type: 'payment_intent.succeeded',
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    data: {
      object: {
        id: `pi_${id.replace(/^evt_/, '')}`,
        object: 'payment_intent',
        amount: 2000,
        amount_received: 2000,
        currency: 'usd',
        customer: 'cus_Q2sample',
        status: 'succeeded',
        metadata: { order_id: '6735' },
      },
    },
  }),
  'checkout.session.completed': (id) => ({
    id,
    object: 'event',
    api_version: '2025-11-17.clover',
    created: CREATED,
    type: 'checkout.session.completed',
    livemode: false,
    pending_webhooks: 1,
    data: {
      object: {
        id: `cs_test_${id.replace(/^evt_/, '')}`,
        object: 'checkout.session',
        amount_total: 4900,
        currency: 'eur',
        customer_details: { email: 'jenny@example.com', name: 'Jenny Rosen' },
        mode: 'payment',
        payment_status: 'paid',
        status: 'complete',
        client_reference_id: 'order_6736',
      },
    },
  }),
};

const repository = {
  id: 1296269,
  name: 'shop',
  full_name: 'octo-org/shop',
  private: true,
  default_branch: 'main',
};

const github: Record<string, Sample> = {
  push: () => ({
    ref: 'refs/heads/main',
    before: '6113728f27ae82c7b1a177c8d03f9e96e0adf246',
    after: '0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c',
    repository,
    pusher: { name: 'octocat', email: 'octocat@github.com' },
    head_commit: {
      id: '0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c',
      message: 'Fix the refund rounding',
      author: { name: 'Mona Lisa', username: 'octocat' },
    },
  }),
  pull_request: () => ({
    action: 'opened',
    number: 42,
    pull_request: {
      id: 279147437,
      number: 42,
      title: 'Retry the ledger call once',
      state: 'open',
      user: { login: 'octocat' },
      head: { ref: 'retry-ledger', sha: '0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c' },
      base: { ref: 'main' },
    },
    repository,
    sender: { login: 'octocat' },
  }),
};

const shopify: Record<string, Sample> = {
  'orders/create': (id) => ({
    id: numeric(id),
    admin_graphql_api_id: `gid://shopify/Order/${numeric(id)}`,
    name: '#1001',
    email: 'jon@example.com',
    currency: 'CAD',
    total_price: '403.00',
    financial_status: 'paid',
    line_items: [
      { id: 866550311766439000, title: 'IPod Nano - 8GB', quantity: 1, price: '199.00' },
    ],
    customer: { id: 603851970716743400, first_name: 'Jon', last_name: 'Doe' },
  }),
};

const paymeCall = (method: string, params: (id: string) => object) => (id: string) => ({
  method,
  params: params(id),
  id: numeric(id) % 100_000,
});

const payme: Record<string, Sample> = {
  CheckPerformTransaction: paymeCall('CheckPerformTransaction', () => ({
    amount: 500000,
    account: { order_id: '6735' },
  })),
  CreateTransaction: paymeCall('CreateTransaction', (id) => ({
    id,
    time: CREATED * 1000,
    amount: 500000,
    account: { order_id: '6735' },
  })),
  PerformTransaction: paymeCall('PerformTransaction', (id) => ({ id })),
};

const clickFields = (id: string) => ({
  click_trans_id: numeric(id),
  service_id: 12345,
  click_paydoc_id: numeric(id) + 1,
  merchant_trans_id: 'order-6735',
  amount: '5000.00',
});

const click: Record<string, Sample> = {
  prepare: clickFields,
  complete: (id) => ({ ...clickFields(id), merchant_prepare_id: 6735 }),
};

const uzumBody = (id: string) => ({
  serviceId: 101202,
  transId: id,
  params: { account: '6735' },
  amount: 500000,
});

const uzum: Record<string, Sample> = {
  check: (id) => ({ serviceId: 101202, transId: id, params: { account: '6735' } }),
  create: uzumBody,
  confirm: (id) => ({
    serviceId: 101202,
    transId: id,
    paymentSource: 'UZCARD',
    phone: '998901234567',
  }),
};

const telegram: Record<string, Sample> = {
  message: (id) => ({
    update_id: numeric(id),
    message: {
      message_id: 1365,
      date: CREATED,
      chat: { id: 1111111, type: 'private', first_name: 'Jane' },
      from: { id: 1111111, is_bot: false, first_name: 'Jane', language_code: 'en' },
      text: '/start',
    },
  }),
};

/** The samples of each preset that has some, the first of each its default. */
export const SAMPLES: Readonly<Record<string, Readonly<Record<string, Sample>>>> = {
  stripe,
  github,
  shopify,
  payme,
  click,
  uzum,
  telegram,
};
