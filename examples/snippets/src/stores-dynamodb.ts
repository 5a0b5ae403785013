/** @module docs/stores.md and packages/dynamodb/README.md: DynamoDBStore, its table and transactional completion. Run by test/stores-dynamodb.test.ts. */
// #region client
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { IdempotencyGuard, RequestKey } from '@webhook-idempotency/core';
import { DynamoDBStore } from '@webhook-idempotency/dynamodb';
// #endregion client
// #region table
import { CreateTableCommand, UpdateTimeToLiveCommand } from '@aws-sdk/client-dynamodb';
import { receiptsTable } from '@webhook-idempotency/dynamodb';
// #endregion table
// #region express
import { requireTransaction } from '@webhook-idempotency/core';
import { idempotencyErrors, idempotent } from '@webhook-idempotency/express';
import express from 'express';
import { z } from 'zod';
// #endregion express
// #region document-client
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
// #endregion document-client

/** One GitHub delivery on DynamoDB; the region, credentials and endpoint come from the environment. */
export async function clientExample(
  deliveryId: string,
  queueBuild: (sha: string) => Promise<void>,
): Promise<{ client: DynamoDBClient; isReplay: boolean }> {
  // #region client
  const client = new DynamoDBClient({
    maxAttempts: 3, // the SDK's retries of throttling and network errors
    requestHandler: { connectionTimeout: 1_000, requestTimeout: 2_000 },
  });
  const store = new DynamoDBStore(client, {
    table: 'webhook_receipts',
    retentionSeconds: 7 * 86_400, // the TTL attribute: DynamoDB deletes finished receipts after 7 days
  });
  const guard = new IdempotencyGuard(store);

  const outcome = await guard.run(new RequestKey('github', deliveryId), async () => {
    await queueBuild('9f2c1e0');
    return 'queued';
  });
  // #endregion client
  return { client, isReplay: outcome.isReplay };
}

/** Creates the receipts table and turns its TTL on (once, at deploy time). */
export async function createReceiptsTable(client: DynamoDBClient): Promise<void> {
  // #region table
  const { create, timeToLive } = receiptsTable('webhook_receipts');
  await client.send(new CreateTableCommand(create)); // key: id (string), on-demand capacity
  await client.send(new UpdateTimeToLiveCommand(timeToLive)); // TTL on expiresAt
  // #endregion table
}

/** A Stripe payment booked in DynamoDB in the same transaction as its receipt. */
export function bookPayment(
  client: DynamoDBClient,
  event: { id: string; data: { object: { metadata: { orderId: string } } } },
) {
  // #region transactional
  const store = new DynamoDBStore(client, { table: 'webhook_receipts' });
  const guard = new IdempotencyGuard(store, { transactional: true });

  return guard.run(new RequestKey('stripe', event.id), async ({ transaction }) => {
    // Collected now, sent when the handler returns: the update and the receipt's completion go in
    // one TransactWriteItems, so both are written or neither is.
    transaction!.update({
      TableName: 'orders',
      Key: { id: event.data.object.metadata.orderId },
      UpdateExpression: 'SET paid = :yes, paymentEvent = :event',
      ExpressionAttributeValues: { ':yes': true, ':event': event.id },
    });
    return { received: true };
  });
  // #endregion transactional
}

/** The same over HTTP: an Express route in transactional mode. */
export function expressApp(client: DynamoDBClient): express.Express {
  // #region express
  const store = new DynamoDBStore(client, { table: 'webhook_receipts' });
  const Shipment = z.object({ orderId: z.string() });
  const app = express();
  app.post(
    '/webhooks/orders',
    express.raw({ type: '*/*' }),
    idempotent({
      store,
      provider: 'shop',
      key: (req) => req.get('x-delivery-id'),
      transactional: true,
      maxResponseBytes: 64 * 1024, // a receipt is one DynamoDB item: at most 400 KB in all
    }),
    (req, res) => {
      const tx = requireTransaction(req.idempotency, store); // typed: DynamoDBTransaction
      const shipment = Shipment.safeParse(JSON.parse(req.body.toString('utf8')));
      // 400, not recorded: nothing is written and the receipt fails (retried on redelivery).
      if (!shipment.success) return void res.status(400).json(z.treeifyError(shipment.error));
      const { orderId } = shipment.data;
      tx.update({
        TableName: 'orders',
        Key: { id: orderId },
        UpdateExpression: 'SET shipped = :yes',
        ConditionExpression: 'attribute_exists(id)', // judged as the run commits
        ExpressionAttributeValues: { ':yes': true },
      });
      res.json({ shipped: orderId });
    },
  );
  app.use(idempotencyErrors());
  // #endregion express
  return app;
}

/** The store over a document client made from the application's client. */
export function documentClientStore(client: DynamoDBClient): DynamoDBStore {
  // #region document-client
  const documents = DynamoDBDocumentClient.from(client);
  const store = new DynamoDBStore(documents, { table: 'webhook_receipts' });
  // #endregion document-client
  return store;
}
