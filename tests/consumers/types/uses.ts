// Type-level use of every public entry point, checked by `tsc` in a consumer project under the
// node16, nodenext and bundler module resolutions. Shared by esm.mts, cjs.cts and bundler.ts.
import {
  ErrorCode,
  IdempotencyGuard,
  InMemoryStore,
  MINUTE,
  ReceiptStatus,
  RequestKey,
  isIdempotencyError,
  requireTransaction,
  type GuardEvent,
  type HttpRequest,
  type Outcome,
  type ProviderPreset,
  type RequestIdempotency,
  type Store,
} from '@webhook-idempotency/core';
import { canonicalJson } from '@webhook-idempotency/core/adapter';
import * as providers from '@webhook-idempotency/providers';
import * as signers from '@webhook-idempotency/providers/testing';
import {
  createEngine,
  responseNotCaptured,
  type Decision,
  type PendingRun,
} from '@webhook-idempotency/core/adapter';
import {
  conformanceCases,
  runInboxStoreConformance,
  runStoreConformance,
  type ConformanceOptions,
} from '@webhook-idempotency/core/testing';
import { ExitCode, run, type CliIo } from '@webhook-idempotency/cli';
import {
  ReceiptsAdmin,
  Schema,
  SqlStore,
  type ReceiptsStatus,
  type ReleaseResult,
  type SqlStoreOptions,
} from '@webhook-idempotency/sql';
import {
  idempotent,
  saveRawBody,
  type ExpressIdempotencyOptions,
} from '@webhook-idempotency/express';
import fastifyIdempotency, {
  fastifyIdempotency as namedPlugin,
  type FastifyIdempotencyOptions,
} from '@webhook-idempotency/fastify';
import { idempotent as koaIdempotent, type KoaIdempotencyOptions } from '@webhook-idempotency/koa';
import { withIdempotency, type FetchIdempotencyOptions } from '@webhook-idempotency/fetch';
import {
  bodyOf,
  inboxWorker,
  type LambdaIdempotencyOptions,
  UnsupportedEventError,
  withIdempotency as lambdaGuard,
} from '@webhook-idempotency/lambda';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import {
  idempotent as honoIdempotent,
  type HonoIdempotencyOptions,
  type IdempotencyVariables,
} from '@webhook-idempotency/hono';
import {
  instrument,
  MetricName,
  telemetryListener,
  type TelemetryOptions,
} from '@webhook-idempotency/opentelemetry';
import {
  Idempotent,
  IdempotencyModule,
  type NestIdempotencyOptions,
} from '@webhook-idempotency/nestjs';
import {
  createInboxWorker,
  DeliveryStatus,
  InMemoryInbox,
  type InboxEvent,
  type InboxStore,
} from '@webhook-idempotency/core/inbox';
import { createInboxEngine } from '@webhook-idempotency/core/adapter';
import { InboxSchema, OutboxSchema, SqlInbox, SqlOutbox } from '@webhook-idempotency/sql';
import {
  createOutboxDispatcher,
  emailSender,
  type HttpMessage,
  httpSender,
  Outbox,
  type OutboxEvent,
  PermanentSendFailure,
} from '@webhook-idempotency/core/outbox';
import { inbox, type ExpressInboxOptions } from '@webhook-idempotency/express';
import { inbox as fastifyInbox } from '@webhook-idempotency/fastify';
import { inbox as koaInbox } from '@webhook-idempotency/koa';
import {
  type BullmqRelayOptions,
  bullmqProcessor,
  bullmqRelay,
  DEFAULT_JOB_OPTIONS,
  InvalidInboxJob,
} from '@webhook-idempotency/bullmq';
import { Queue, Worker } from 'bullmq';
import { RedisStore, type RedisStoreOptions } from '@webhook-idempotency/redis';
import {
  DynamoDBStore,
  type DynamoDBStoreOptions,
  type DynamoDBTransaction,
  TransactionCanceled,
  TransactionLimitExceeded,
  receiptsTable,
} from '@webhook-idempotency/dynamodb';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { Cluster, Redis } from 'ioredis';
import { createClient, createCluster } from 'redis';
import { pgBossJobId, pgBossRelay, pgBossWorker } from '@webhook-idempotency/pg-boss';
import { PgBoss } from 'pg-boss';
import pg from 'pg';
import Database from 'better-sqlite3';
import { fromDrizzle } from '@webhook-idempotency/sql/drizzle';
import { fromKysely } from '@webhook-idempotency/sql/kysely';
import { fromPostgres } from '@webhook-idempotency/sql/postgres';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { drizzle as drizzleSqlite } from 'drizzle-orm/better-sqlite3';
import { pgTable, varchar } from 'drizzle-orm/pg-core';
import { sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { Kysely, PostgresDialect } from 'kysely';
import postgres from 'postgres';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import Koa from 'koa';

export async function uses(): Promise<void> {
  const store: Store = new InMemoryStore();
  const guard = new IdempotencyGuard(store, { staleAfterSeconds: (5 * MINUTE) / 1000 });
  const outcome: Outcome<{ ok: boolean }> = await guard.run(
    new RequestKey('stripe', 'evt_1'),
    () => ({ ok: true }),
  );
  const replayed: boolean = outcome.isReplay;
  const status: ReceiptStatus = ReceiptStatus.COMPLETED;
  const code: ErrorCode = ErrorCode.IN_PROGRESS;
  const onEvent = (event: GuardEvent): string => event.type;
  void [
    replayed,
    status,
    code,
    onEvent,
    canonicalJson({ b: 1, a: 2 }),
    isIdempotencyError(new Error('x')),
  ];

  const sql = new SqlStore(new Database(':memory:'), {
    table: 'receipts',
  } satisfies SqlStoreOptions);
  await Schema.createTable(new Database(':memory:'));
  const admin = new ReceiptsAdmin(new Database(':memory:'), { table: 'receipts' });
  const report: ReceiptsStatus = await admin.status({ staleAfterMs: 300_000, sinceMs: 86_400_000 });
  const released: ReleaseResult = await admin.release(
    { provider: 'github', externalId: 'd-1' },
    { staleAfterMs: 300_000 },
  );
  const io: CliIo = { stdout: process.stdout, stderr: process.stderr, env: process.env };
  const exit: number = await run(['status', '--fail-on-stuck'], io);
  void [report.totals.stuck, released.released, exit === ExitCode.STUCK];

  const expressOptions: ExpressIdempotencyOptions = {
    store: sql,
    provider: 'github',
    key: (req) => req.get('x-github-delivery'),
  };
  const app = express();
  app.use(express.json({ verify: saveRawBody }));
  app.post('/webhooks', idempotent(expressOptions), (req, res) => {
    res.json({ attempt: req.idempotency?.attempts });
  });
  // @ts-expect-error `provider` is a string or a function of the request
  idempotent({ store, provider: 42, key: () => 'x' });
  // A batched preset: each item under its own receipt, its transaction typed from the store.
  const adyenPreset = providers.adyen({ hmacKey: 'AB12' });
  app.post('/webhooks/adyen', idempotent({ store: sql, preset: adyenPreset }), async (req, res) => {
    await req.idempotency?.batch?.each<{ pspReference: string }>(async (item, context) => {
      const tx = requireTransaction(context, sql);
      void [item.pspReference, tx, context.attempts];
    });
    res.type('text/plain').send('[accepted]');
  });

  const fastifyOptions: FastifyIdempotencyOptions = {
    store,
    preset: providers.stripe({ secret: 'whsec_x' }),
  };
  const fastify = Fastify();
  await fastify.register(fastifyIdempotency, fastifyOptions);
  await fastify.register(namedPlugin, fastifyOptions);
  fastify.post('/webhooks', async (request) => ({ attempt: request.idempotency?.attempts }));

  const koaOptions: KoaIdempotencyOptions = {
    store,
    provider: 'telegram',
    key: (ctx) => ctx.get('x-update-id'),
  };
  new Koa().use(koaIdempotent(koaOptions));

  const lambdaOptions: LambdaIdempotencyOptions<unknown, APIGatewayProxyEventV2> = {
    store,
    preset: providers.stripe({ secret: 'whsec_x' }),
    timeMarginMs: 500,
  };
  const lambdaHandler: (event: APIGatewayProxyEventV2, context: Context) => Promise<unknown> =
    lambdaGuard(lambdaOptions, async (event, idempotency) => ({
      statusCode: 200,
      body: JSON.stringify({ bytes: bodyOf(event).length, attempt: idempotency?.attempts }),
    }));
  void [lambdaHandler, inboxWorker, UnsupportedEventError];

  const fetchOptions: FetchIdempotencyOptions = {
    store,
    provider: 'acme',
    key: (request) => request.headers.get('x-id'),
    maxRequestBytes: 64 * 1024,
  };
  const POST: (request: Request, context: { params: Promise<object> }) => Promise<Response> =
    withIdempotency(fetchOptions, async (request, idempotency) =>
      Response.json({ attempt: idempotency?.attempts, body: await request.text() }),
    );

  const honoOptions: HonoIdempotencyOptions = {
    store,
    provider: 'acme',
    key: (c) => c.req.header('x-id'),
  };
  const hono = new Hono<{ Variables: IdempotencyVariables }>();
  hono.post('/webhooks', honoIdempotent(honoOptions), (c) =>
    c.json({ attempt: c.get('idempotency')?.attempts ?? null }),
  );
  void [POST, hono];
  const nestOptions: NestIdempotencyOptions = {
    store,
    preset: providers.payme({ password: 'x'.repeat(36) }),
  };
  const nestRoute: MethodDecorator = Idempotent({
    provider: 'github',
    key: (req) => req.headers['x-github-delivery'] as string | undefined,
  });
  void [IdempotencyModule.forRoot(nestOptions), nestRoute];
  // The catalogue's newer presets and the builder, with their option types.
  const catalogue: ProviderPreset[] = [
    providers.clerk({ secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' }),
    providers.resend({ secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' }),
    providers.razorpay({ secret: 'x' }),
    providers.discord({ publicKey: 'a'.repeat(64) }),
    providers.twitch({ secret: 'a-secret-of-ours' }),
    providers.gitlab({ secretToken: 'x' }),
    providers.square({ signatureKey: 'k', notificationUrl: 'https://example.com/hook' }),
    providers.typeform({ secret: 'x' }),
    providers.checkout({ secret: 'x' }),
    providers.vercel({ secret: 'x' }),
    providers.intercom({ secret: 'x' }),
    providers.wise({ environment: 'sandbox' }),
    providers.wise({ publicKey: providers.WISE_PRODUCTION_PUBLIC_KEY }),
    providers.paypal({
      webhookId: 'WH',
      fetchCertificate: async (url: string, signal: AbortSignal) =>
        (await fetch(url, { signal })).text(),
      certificateTimeoutMs: 2000,
    }),
    providers.coinbase({ secret: 'x' }),
    providers.lemonsqueezy({ secret: 'x' }),
    providers.airwallex({ secret: 'x', toleranceSeconds: 300 }),
    providers.paystack({ secretKey: 'sk_test_x' }),
    providers.calendly({ signingKey: 'x' }),
    providers.sentry({ clientSecret: 'x' }),
    providers.bitbucket({ secret: 'x' }),
    providers.postmark({ username: 'u', password: 'p' }),
    providers.hmac({
      provider: 'acme',
      secret: 'x',
      signatureHeader: 'x-acme-signature',
      signedPayload: (r) => [`${r.timestamp}.`, r.body],
      timestamp: { header: 'x-acme-timestamp' },
      key: 'x-acme-delivery',
      retentionDays: 7,
    }),
    // The catalogue past 75, each with its minimal options.
    providers.click({ secretKey: 'secret' }),
    providers.uzum({ username: 'user', password: 'pass' }),
    providers.github({ secret: 'x' }),
    providers.telegram({ botId: 1, secretToken: 'token' }),
    providers.shopify({ secret: 'x' }),
    providers.standardWebhooks({ secret: 'whsec_c2VjcmV0' }),
    providers.slack({ signingSecret: 'x' }),
    providers.paddle({ secret: 'x' }),
    providers.cloudinary({ apiSecret: 'x' }),
    providers.dropboxSign({ apiKey: 'x' }),
    providers.tbank({ password: 'x' }),
    providers.robokassa({ password2: 'x' }),
    providers.mandrill({ webhookKey: 'x', webhookUrl: 'https://example.com/webhooks/mandrill' }),
    providers.pagerduty({ secret: 'x' }),
    providers.openai({ secret: 'whsec_c2VjcmV0' }),
    providers.replicate({ secret: 'whsec_c2VjcmV0' }),
    providers.stytch({ secret: 'whsec_c2VjcmV0' }),
    providers.polar({ secret: 'whsec_c2VjcmV0' }),
    providers.dodopayments({ secret: 'whsec_c2VjcmV0' }),
    providers.supabaseAuthHooks({ secret: 'whsec_c2VjcmV0' }),
    providers.workos({ secret: 'x' }),
    providers.elevenlabs({ secret: 'x' }),
    providers.sanity({ secret: 'x' }),
    providers.mux({ secret: 'x' }),
    providers.webflow({ secret: 'x' }),
    providers.recurly({ secret: 'x' }),
    providers.revolut({ signingSecret: 'x' }),
    providers.persona({ secret: 'x' }),
    providers.chargebee({ username: 'u', password: 'p' }),
    providers.auth0({ authorization: 'Bearer token' }),
    providers.okta({ secret: 'x' }),
    providers.microsoftGraph({ clientState: 'x' }),
    providers.azureEventGrid({ secret: 'x' }),
    providers.googleCalendar({ token: 'x' }),
    providers.line({ channelSecret: 'x' }),
    providers.notion({ verificationToken: 'x' }),
    providers.woocommerce({ secret: 'x' }),
    providers.gocardless({ secret: 'x' }),
    providers.viber({ authToken: 'x' }),
    providers.telnyx({ publicKey: 'BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc=' }),
    providers.qstash({ signingKey: 'sig_x', url: 'https://example.com/api/qstash' }),
    providers.vonage({ signatureSecret: 'x' }),
    providers.plaid({ fetchKey: async () => undefined }),
    providers.twilio({ authToken: 'x', baseUrl: 'https://example.com' }),
    providers.twilio({ authToken: 'x', url: (r) => `https://example.com${r.url}` }),
    providers.linear({ secret: 'x', toleranceSeconds: 60 }),
    providers.mercadopago({ secret: 'x' }),
    providers.zoom({ secretToken: 'x' }),
    providers.braintree({ publicKey: 'p', privateKey: 'k' }),
    providers.mailgun({ signingKey: 'x', toleranceSeconds: 300 }),
    providers.sendgrid({ publicKey: 'MFkw', toleranceSeconds: 600 }),
    providers.hubspot({ clientSecret: 'x', targetUrl: (request) => `https://x${request.url}` }),
    providers.adyen({ hmacKey: 'AB12', basicAuth: { username: 'u', password: 'p' } }),
    providers.meta({ appSecret: 'x', verifyToken: 'y' }),
  ];
  // @ts-expect-error retentionDays is required: the builder cannot know the provider's window
  providers.hmac({ provider: 'a', secret: 'x', signatureHeader: 'x-s', key: 'x-k' });
  void catalogue;

  const engine = createEngine<HttpRequest>({ store, provider: 'acme', key: () => '1' });
  const decide = (decision: Decision): string => decision.action;
  const pending = (run: PendingRun): PendingRun => run;
  void [engine, decide, pending, responseNotCaptured('a stream'), conformanceCases.length];
  const suite: ConformanceOptions = {
    name: 'memory',
    makeStore: () => ({ store: new InMemoryStore() }),
  };
  void [suite, runStoreConformance];
  const memoryInbox: InboxStore = new InMemoryInbox({ now: () => Date.now() });
  void [
    memoryInbox,
    () =>
      runInboxStoreConformance({
        name: 'memory',
        makeInbox: () => ({ inbox: new InMemoryInbox() }),
      }),
  ];

  const telemetry: TelemetryOptions = {};
  const traced = new IdempotencyGuard(store, instrument({ staleAfterSeconds: 60 }, telemetry));
  const tracedApp = idempotent(
    instrument({ store, provider: 'acme', key: (req) => req.get('x-id'), onEvent }),
  );
  // @ts-expect-error the listener takes guard events
  instrument({ onEvent: (event: string) => event });
  void [traced, tracedApp, telemetryListener(), MetricName.DELIVERIES];
}

/** Inbox mode: the deliveries table, the endpoint on each adapter, the worker. */
export async function inboxUses(): Promise<void> {
  const db = new Database(':memory:');
  await InboxSchema.createTable(db);
  const deliveries = new SqlInbox(db, { skipLocked: true });
  const options: ExpressInboxOptions = {
    inbox: deliveries,
    preset: providers.stripe({ secret: 'whsec_x' }),
    orderingKey: (req) => req.get('x-customer'),
  };
  express().post('/webhooks', express.raw({ type: '*/*' }), inbox(options));
  Fastify().post(
    '/webhooks',
    {
      preHandler: fastifyInbox({
        inbox: deliveries,
        provider: 'acme',
        key: () => '1',
        verify: (request, raw) => request.headers['x-token'] === 'secret' && raw !== undefined,
      }),
    },
    async () => ({}),
  );
  new Koa().use(
    koaInbox({
      inbox: deliveries,
      provider: 'acme',
      key: (ctx) => ctx.get('x-id'),
      unverified: true,
    }),
  );
  void createInboxEngine({ inbox: deliveries, provider: 'acme', key: () => '1', unverified: true });
  const worker = createInboxWorker({
    inbox: deliveries,
    store: new SqlStore(db),
    handlers: {
      stripe: (delivery, { transaction }) => transaction?.prepare('SELECT ?').get(delivery.id),
    },
    onEvent: (event: InboxEvent) => void event.type,
  });
  const dead = await deliveries.list({ status: DeliveryStatus.DEAD });
  void [worker.running, dead.length];
}

/** Inbox mode on BullMQ: the relay over a queue, the processor in a worker. */
export function bullmqUses(): void {
  const db = new Database(':memory:');
  const deliveries = new SqlInbox(db);
  const connection = { host: '127.0.0.1', port: 6379, lazyConnect: true };
  const options: BullmqRelayOptions = {
    inbox: deliveries,
    queue: new Queue('webhooks', { connection }),
    providers: ['stripe'],
    jobOptions: { attempts: 3, backoff: { type: 'exponential', delay: 500 } },
  };
  const relay = bullmqRelay(options);
  const processor = bullmqProcessor({
    inbox: deliveries,
    store: new SqlStore(db),
    handlers: {
      stripe: (delivery, { transaction }) => transaction?.prepare('SELECT ?').get(delivery.id),
    },
  });
  const worker = new Worker('webhooks', processor, { connection, autorun: false });
  // @ts-expect-error the relay names each job itself
  bullmqRelay({ ...options, jobOptions: { jobId: 'mine' } });
  void [
    relay.running,
    worker,
    DEFAULT_JOB_OPTIONS.attempts,
    new InvalidInboxJob('1', 'job.data', 'x').field,
  ];
}

/** Inbox mode on pg-boss: the relay, awaited, and a worker registered on the queue. */
export async function pgBossUses(): Promise<void> {
  const pool = new pg.Pool();
  const deliveries = new SqlInbox(pool);
  const boss = new PgBoss('postgres://localhost/app');
  const relay = await pgBossRelay({
    boss,
    queue: 'webhooks',
    inbox: deliveries,
    providers: ['stripe'],
    maxHandoffs: 3,
    jobOptions: { retryLimit: 5, priority: 1 },
  });
  const id: string = await pgBossWorker({
    boss,
    queue: 'webhooks',
    inbox: deliveries,
    store: new SqlStore(pool),
    workOptions: { batchSize: 4, localConcurrency: 2 },
    handlers: {
      stripe: async (delivery, { transaction }) => {
        await transaction?.query('SELECT $1::bigint', [delivery.id]);
      },
    },
  });
  await pgBossRelay({
    boss,
    queue: 'q',
    inbox: deliveries,
    providers: ['s'],
    // @ts-expect-error a singleton key would let pg-boss drop deliveries
    jobOptions: { singletonKey: 'k' },
  });
  void [
    relay.running,
    id,
    pgBossJobId({ id: 1, provider: 'stripe', externalId: 'e', attempts: 1 }),
  ];
}

/** The ORM connections: each handler writes through the tool's own transaction, typed from the store, no cast. */
export async function ormUses(): Promise<void> {
  const key = new RequestKey('stripe', 'evt_orm');
  const kysely = new Kysely<{ orders: { id: string } }>({
    dialect: new PostgresDialect({ pool: new pg.Pool() }),
  });
  const viaKysely = new IdempotencyGuard(new SqlStore(fromKysely(kysely)), { transactional: true });
  await viaKysely.run(key, async ({ transaction }) => {
    await transaction?.insertInto('orders').values({ id: 'o_1' }).execute();
    // @ts-expect-error the table is typed: `refunds` is not in the schema
    await transaction?.insertInto('refunds').values({ id: 'o_1' }).execute();
  });
  // In an HTTP handler: the request's transaction, typed from the store (req.idempotency is untyped).
  const kyselyStore = new SqlStore(fromKysely(kysely));
  const fromRequest = async (idempotency: RequestIdempotency | undefined) => {
    const trx = requireTransaction(idempotency, kyselyStore);
    await trx.insertInto('orders').values({ id: 'o_2' }).execute();
    // @ts-expect-error typed from the store, not `any`
    await trx.insertInto('refunds').values({ id: 'o_2' }).execute();
  };
  void fromRequest;

  const orders = pgTable('orders', { id: varchar('id', { length: 100 }).primaryKey() });
  const viaDrizzle = new IdempotencyGuard(new SqlStore(fromDrizzle(drizzlePg(new pg.Pool()))), {
    transactional: true,
  });
  await viaDrizzle.run(key, async ({ transaction }) => {
    await transaction?.insert(orders).values({ id: 'o_1' });
    // @ts-expect-error the column is typed
    await transaction?.insert(orders).values({ id: 1 });
  });

  const messages = sqliteTable('messages', { id: text('id').primaryKey() });
  const sqlite = drizzleSqlite(new Database(':memory:'));
  const viaDrizzleSqlite = new IdempotencyGuard(new SqlStore(fromDrizzle(sqlite)), {
    transactional: true,
  });
  await viaDrizzleSqlite.run(key, ({ transaction }) => {
    transaction?.insert(messages).values({ id: 'm_1' }).run();
  });

  const sql = postgres('postgres://localhost/app');
  const viaPostgres = new IdempotencyGuard(new SqlStore(fromPostgres(sql)), {
    transactional: true,
  });
  await viaPostgres.run(key, async ({ transaction }) => {
    if (transaction) await transaction`INSERT INTO orders (id) VALUES (${'o_1'})`;
  });
  void new SqlInbox(fromKysely(kysely));
}

/** The Redis store over each client it takes: ioredis (a server, a cluster) and node-redis (a client, a cluster). */
export function redisUses(): void {
  const options: RedisStoreOptions = {
    prefix: 'app:',
    retentionSeconds: 86_400,
    commandTimeoutMs: 2_000,
  };
  const stores: Store[] = [
    new RedisStore(new Redis({ lazyConnect: true }), options),
    new RedisStore(new Cluster([{ host: '127.0.0.1', port: 7000 }], { lazyConnect: true })),
    new RedisStore(createClient()),
    new RedisStore(createCluster({ rootNodes: [{ url: 'redis://127.0.0.1:7000' }] })),
  ];
  // @ts-expect-error not a Redis client
  new RedisStore({ query: () => undefined });
  const guard = new IdempotencyGuard(stores[0]!);
  void [guard, stores[0]!.capabilities.transactional];
}

/** The DynamoDB store over a client and a document client, and the typed transaction of its runs. */
export async function dynamodbUses(): Promise<void> {
  const client = new DynamoDBClient({ region: 'eu-west-1' });
  const options: DynamoDBStoreOptions = {
    table: 'webhook_receipts',
    retentionSeconds: 86_400,
    requestTimeoutMs: 2_000,
  };
  const store = new DynamoDBStore(client, options);
  const stores: Store<DynamoDBTransaction>[] = [
    store,
    new DynamoDBStore(DynamoDBDocumentClient.from(client), { transactions: false }),
  ];
  // @ts-expect-error not a DynamoDB client
  new DynamoDBStore({ query: () => undefined });
  const guard = new IdempotencyGuard(store, { transactional: true });
  await guard.run(new RequestKey('stripe', 'evt_1'), async ({ transaction }) => {
    transaction?.update({
      TableName: 'orders',
      Key: { id: 'o_1' },
      UpdateExpression: 'SET paid = :yes',
      ExpressionAttributeValues: { ':yes': true },
    });
    return { received: true };
  });
  const tx: DynamoDBTransaction = requireTransaction({ transaction: undefined }, store);
  tx.put({ TableName: 'orders', Item: { id: 'o_2' } });
  const refused: unknown = new Error();
  if (refused instanceof TransactionLimitExceeded) void refused.limit;
  if (refused instanceof TransactionCanceled) void refused.writes;
  void [stores, receiptsTable('t').create.TableName];
}

/** The test kit: a signer per preset, its delivery, retry and forged copy, and the send helpers. */
export async function kitUses(): Promise<void> {
  const stripe = signers.stripe({ secret: 'whsec_x' });
  const delivery: signers.Delivery = stripe.event({ id: 'evt_1' }, { at: Date.now() - 1000 });
  const retry: signers.Delivery = delivery.retry();
  const request: Request = signers.toRequest(delivery.forged());
  const ping: signers.Handshake = signers.discord().ping();
  const preset = providers.stripe({ secret: ['whsec_old', 'whsec_x'] });
  void [retry.body.length, request.method, ping.answer, preset.provider];
  // @ts-expect-error the signer needs the secret its preset is given
  signers.stripe({});
}

/** The outbox: messages recorded in the handler's transaction, a dispatcher with both senders. */
export async function outboxUses(): Promise<void> {
  const db = new Database(':memory:');
  await OutboxSchema.createTable(db);
  const store = new SqlStore(db);
  const messages = new SqlOutbox(db, { receipts: store });
  const outbox = new Outbox({ store: messages });
  const guard = new IdempotencyGuard(store, { transactional: true });
  await guard.run(new RequestKey('stripe', 'evt_1'), async (context) => {
    context.transaction?.prepare('UPDATE orders SET paid = 1').run();
    const call: HttpMessage = { url: 'https://api.example.com/notify', json: { paid: true } };
    const key: string = await outbox.add(context, {
      name: 'notify',
      sender: 'http',
      payload: call,
    });
    return { key };
  });
  const dispatcher = createOutboxDispatcher({
    outbox: messages,
    senders: {
      http: httpSender(),
      email: emailSender({ sendMail: async () => ({}) }, { messageIdDomain: 'example.com' }),
      own: async ({ key, payload }) => {
        if (payload === null) throw new PermanentSendFailure(`nothing to send for ${key}`);
      },
    },
    onEvent: (event: OutboxEvent) => void event.type,
  });
  dispatcher.start();
  await dispatcher.stop();
  // @ts-expect-error a message names its sender
  await outbox.add({} as never, { name: 'notify', payload: {} });
}
