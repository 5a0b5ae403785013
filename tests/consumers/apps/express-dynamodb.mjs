// An ES module Express app: idempotent() + DynamoDBStore over a DynamoDBDocumentClient, without
// transactions, on the run's dynalite.
import { createServer } from 'node:http';
import express from 'express';
import { CreateTableCommand, DynamoDBClient, waitUntilTableExists } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { idempotent } from '@webhook-idempotency/express';
import { DynamoDBStore, receiptsTable } from '@webhook-idempotency/dynamodb';
import { exercise } from './deliveries.cjs';

const client = new DynamoDBClient({
  endpoint: process.env.WI_DYNALITE_URL,
  region: 'us-east-1',
  credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
});
// A table of its own: every Node line runs this app against the same server.
const table = `consumer-${process.pid}-${Date.now()}`;
await client.send(new CreateTableCommand(receiptsTable(table).create));
// dynalite makes a table ACTIVE on the next tick: wait for it as a deploy would.
await waitUntilTableExists({ client, maxWaitTime: 30 }, { TableName: table });
let runs = 0;
const app = express();
app.post(
  '/webhooks',
  express.raw({ type: '*/*' }),
  idempotent({
    store: new DynamoDBStore(DynamoDBDocumentClient.from(client), {
      table,
      retentionSeconds: 3600,
      transactions: false,
    }),
    provider: 'acme',
    key: (req) => req.get('x-delivery-id'),
  }),
  (req, res) => res.status(201).json({ order: ++runs, bytes: req.body.length }),
);
await exercise(createServer(app), () => runs);
client.destroy();
