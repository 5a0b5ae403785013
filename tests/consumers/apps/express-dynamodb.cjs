// A CommonJS Express app: idempotent() + DynamoDBStore over a DynamoDBClient in transactional
// mode (the handler's write and the receipt in one TransactWriteItems), on the run's DynamoDB Local.
const { createServer } = require('node:http');
const express = require('express');
const { CreateTableCommand, DynamoDBClient, GetItemCommand } = require('@aws-sdk/client-dynamodb');
const { requireTransaction } = require('@webhook-idempotency/core');
const { idempotent } = require('@webhook-idempotency/express');
const { DynamoDBStore, receiptsTable } = require('@webhook-idempotency/dynamodb');
const { exercise } = require('./deliveries.cjs');

async function main() {
  const client = new DynamoDBClient({
    endpoint: process.env.WI_DYNAMODB_LOCAL_URL,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
  // Tables of its own: every Node line runs this app against the same server.
  const suffix = `${process.pid}-${Date.now()}`;
  const receipts = `consumer-receipts-${suffix}`;
  const orders = `consumer-orders-${suffix}`;
  await client.send(new CreateTableCommand(receiptsTable(receipts).create));
  await client.send(new CreateTableCommand({ ...receiptsTable(orders).create }));
  const store = new DynamoDBStore(client, { table: receipts });
  let runs = 0;
  const app = express();
  app.post(
    '/webhooks',
    express.raw({ type: '*/*' }),
    idempotent({
      store,
      provider: 'acme',
      key: (req) => req.get('x-delivery-id'),
      transactional: true,
    }),
    (req, res) => {
      requireTransaction(req.idempotency, store).put({
        TableName: orders,
        Item: { id: req.get('x-delivery-id'), bytes: req.body.length },
      });
      res.status(201).json({ order: ++runs, bytes: req.body.length });
    },
  );
  await exercise(createServer(app), () => runs);
  const { Item } = await client.send(
    new GetItemCommand({ TableName: orders, Key: { id: { S: 'evt_consumer_1' } } }),
  );
  if (!Item) throw new Error('the handler’s write did not commit with the receipt');
  client.destroy();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
