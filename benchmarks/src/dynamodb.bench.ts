/**
 * @module The DynamoDB store beside the SQL stores, in the same table and run, against Powertools'
 * idempotency utility (`@aws-lambda-powertools/idempotency`, `makeIdempotent` with its
 * `DynamoDBPersistenceLayer`) on the same server, in interleaved rounds: first delivery, replay (a
 * completed receipt), and transactional first delivery (ours: the business `Put` and the receipt's
 * completion in one `TransactWriteItems`; Powertools has no such mode, so its handler sends the same
 * `PutItem` on its own, not atomic with its record). The server is Amazon's DynamoDB Local (in
 * memory, one JVM on the same two cores): its rates are the emulator's, not DynamoDB's; what
 * compares is the two clients on one server. 8 clients, each with its own keys.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import {
  CreateTableCommand,
  DynamoDBClient,
  PutItemCommand,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';
import { IdempotencyGuard, RequestKey } from '@webhook-idempotency/core';
import {
  DynamoDBStore,
  type DynamoDBTransaction,
  receiptsTable,
} from '@webhook-idempotency/dynamodb';
import { startDynamoDBLocal } from '../../test-support/dynamodb';
import { freshId, loops, type Row, spread } from './sql.bench';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const REPLAY_KEYS = Number(process.env.BENCH_DYNAMODB_REPLAY_KEYS ?? 2_000);
const replayId = () => String(1 + Math.floor(Math.random() * REPLAY_KEYS));
type Workload = 'first' | 'replay' | 'transactional first';
const WORKLOADS: readonly Workload[] = ['first', 'replay', 'transactional first'];
const TABLES = { ours: 'bench_receipts', powertools: 'bench_powertools', orders: 'bench_orders' };

async function createTables(client: DynamoDBClient): Promise<void> {
  for (const name of Object.values(TABLES)) {
    // Powertools' table has the same shape: one string partition key `id`.
    await client.send(new CreateTableCommand(receiptsTable(name).create));
    await waitUntilTableExists({ client, maxWaitTime: 60 }, { TableName: name });
  }
}

/** The two sides, each a function of the workload that measures deliveries per second. */
function sides(client: DynamoDBClient) {
  const store = new DynamoDBStore(client, { table: TABLES.ours });
  const plain = new IdempotencyGuard(store);
  const transactional = new IdempotencyGuard(store, { transactional: true });
  const handler = async () => ({ received: true });
  const book = (transaction: DynamoDBTransaction | undefined, id: string) =>
    transaction!.put({ TableName: TABLES.orders, Item: { id: `ours-${id}`, paid: true } });
  const ours = (workload: Workload) =>
    workload === 'transactional first'
      ? loops(
          (id) =>
            transactional.run(new RequestKey('bench', id), async ({ transaction }) => {
              book(transaction, id);
              return { received: true };
            }),
          freshId,
        )
      : loops(
          (id) => plain.run(new RequestKey('bench', id), handler),
          workload === 'first' ? freshId : replayId,
        );

  const persistenceStore = new DynamoDBPersistenceLayer({
    tableName: TABLES.powertools,
    awsSdkV3Client: client,
  });
  const config = new IdempotencyConfig({ eventKeyJmesPath: 'id' });
  // As in a Lambda function: the invocation's time left sets the record's in-progress expiry
  // (Powertools' stale claim), as staleAfterSeconds does ours.
  const lambdaContext = { getRemainingTimeInMillis: () => 60_000 };
  config.registerLambdaContext(
    lambdaContext as unknown as Parameters<IdempotencyConfig['registerLambdaContext']>[0],
  );
  const powertools = makeIdempotent(async (_event: { id: string }) => ({ received: true }), {
    persistenceStore,
    config,
  });
  const powertoolsBooking = makeIdempotent(
    async (event: { id: string }) => {
      await client.send(
        new PutItemCommand({
          TableName: TABLES.orders,
          Item: { id: { S: `powertools-${event.id}` }, paid: { BOOL: true } },
        }),
      );
      return { received: true };
    },
    { persistenceStore, config },
  );
  const anchor = (workload: Workload) =>
    workload === 'transactional first'
      ? loops((id) => powertoolsBooking({ id }), freshId)
      : loops((id) => powertools({ id }), workload === 'first' ? freshId : replayId);
  return { plain, powertools, ours, anchor };
}

/** The DynamoDB rows: a DynamoDB Local server started and removed here. */
export async function dynamodbRows(base: string): Promise<Row[]> {
  const dir = mkdtempSync(join(base, 'dynamodb-'));
  const server = await startDynamoDBLocal(dir, { quickStart: false });
  const client = new DynamoDBClient({
    endpoint: server.url,
    region: 'us-east-1',
    credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' },
    maxAttempts: 3,
  });
  try {
    await createTables(client);
    const { plain, powertools, ours, anchor } = sides(client);
    for (let i = 1; i <= REPLAY_KEYS; i += 50)
      await Promise.all(
        Array.from({ length: Math.min(50, REPLAY_KEYS - i + 1) }, async (_, k) => {
          const id = String(i + k);
          await plain.run(new RequestKey('bench', id), async () => ({ received: true }));
          await powertools({ id });
        }),
      );
    const samples = new Map<Workload, { anchor: number[]; ours: number[] }>(
      WORKLOADS.map((workload) => [workload, { anchor: [], ours: [] }]),
    );
    for (let round = 0; round < ROUNDS; round++)
      for (const [workload, sample] of samples) {
        sample.anchor.push(await anchor(workload));
        sample.ours.push(await ours(workload));
      }
    return [...samples].map(([workload, { anchor: a, ours: o }]) => ({
      database: 'DynamoDB Local 3.3.1 (in memory)',
      anchorName:
        workload === 'transactional first'
          ? 'Powertools idempotency 2.35, its PutItem beside (not atomic)'
          : 'Powertools idempotency 2.35 (DynamoDBPersistenceLayer)',
      workload,
      anchor: spread(a),
      ours: spread(o),
      ratio: spread(o.map((value, i) => value / a[i]!)),
    }));
  } finally {
    client.destroy();
    await server.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
}
