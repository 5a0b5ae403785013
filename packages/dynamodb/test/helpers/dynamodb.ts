/**
 * The DynamoDB-compatible servers of a test run (jest's global setup starts them: dynalite at
 * WI_DYNALITE_URL, DynamoDB Local at WI_DYNAMODB_LOCAL_URL), clients for them, throw-away tables,
 * and the store conformance suite over them: each case gets a table of its own (an empty store),
 * deleted after it. The store takes the caller's clock, so the suite moves time itself.
 */
import { randomUUID } from 'node:crypto';
import {
  CreateTableCommand,
  DeleteTableCommand,
  DynamoDBClient,
  type DynamoDBClientConfig,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { runStoreConformance } from '@webhook-idempotency/core/testing';
import { DynamoDBStore, type DynamoDBStoreOptions, receiptsTable } from '../../src';

/** The two servers: dynalite (no transactions) and Amazon's DynamoDB Local. */
export type Server = 'dynalite' | 'local';

const ENV: Record<Server, string> = {
  dynalite: 'WI_DYNALITE_URL',
  local: 'WI_DYNAMODB_LOCAL_URL',
};

/** The run's server URL; a missing server is an error, never a skip. */
export function serverUrl(server: Server): string {
  const url = process.env[ENV[server]];
  if (!url)
    throw new Error(
      `${ENV[server]} is not set: run the DynamoDB tests through jest, whose global setup starts the servers`,
    );
  return url;
}

/** A client of `url` (the store bounds each of its requests with `requestTimeoutMs`). */
export function clientFor(url: string, config: DynamoDBClientConfig = {}): DynamoDBClient {
  return new DynamoDBClient({
    endpoint: url,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    maxAttempts: 2,
    ...config,
  });
}

/** A table name no other test uses. */
export const freshTable = (label: string): string => `wi-${label}-${randomUUID().slice(0, 13)}`;

/** Creates the receipts table `name` (or any table with one string key `id`); resolves once it is ACTIVE. */
export async function createTable(client: DynamoDBClient, name: string): Promise<void> {
  await client.send(new CreateTableCommand(receiptsTable(name).create));
  await waitUntilTableExists(
    { client, maxWaitTime: 30, minDelay: 0.05, maxDelay: 0.2 },
    { TableName: name },
  );
}

/** Deletes `name`; never throws. */
export async function dropTable(client: DynamoDBClient, name: string): Promise<void> {
  await client.send(new DeleteTableCommand({ TableName: name })).catch(() => undefined);
}

/** Which client the store is given. */
export type ClientKind = 'client' | 'document client';

/**
 * Registers the store conformance suite on one server and client kind: a client for the file,
 * a fresh table for each case.
 */
export function dynamoConformance(
  server: Server,
  kind: ClientKind,
  options: Omit<DynamoDBStoreOptions, 'table'> = {},
): void {
  let client: DynamoDBClient | undefined;
  beforeAll(() => {
    client = clientFor(serverUrl(server));
  });
  afterAll(() => client?.destroy());
  runStoreConformance({
    name: `DynamoDBStore on ${server === 'local' ? 'DynamoDB Local' : 'dynalite'} (${kind})`,
    async makeStore() {
      if (!client) throw new Error('client not open yet');
      const base = client;
      const table = freshTable('conformance');
      await createTable(base, table);
      const given = kind === 'client' ? base : DynamoDBDocumentClient.from(base);
      return {
        store: new DynamoDBStore(given, { ...options, table }),
        close: () => dropTable(base, table),
      };
    },
  });
}
