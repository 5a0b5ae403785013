/**
 * @module The receipts table as DynamoDB creates it: for `CreateTable` (or the same in CloudFormation,
 * CDK or Terraform) and `UpdateTimeToLive`.
 */
import type {
  CreateTableCommandInput,
  UpdateTimeToLiveCommandInput,
} from '@aws-sdk/client-dynamodb';
import { KEY_ATTRIBUTE, TTL_ATTRIBUTE } from './item';
import { DEFAULT_TABLE } from './options';

/** The inputs that create a receipts table and turn its TTL on. */
export interface ReceiptsTable {
  /** `CreateTable`: one string partition key `id`, on-demand capacity. */
  readonly create: CreateTableCommandInput;
  /** `UpdateTimeToLive` on `expiresAt`, read when the store has `retentionSeconds`. */
  readonly timeToLive: UpdateTimeToLiveCommandInput;
}

/**
 * The receipts table `name` (default `'webhook_receipts'`) as `CreateTable` and
 * `UpdateTimeToLive` take it.
 * @example
 * const { create, timeToLive } = receiptsTable('webhook_receipts');
 * await client.send(new CreateTableCommand(create));
 * await client.send(new UpdateTimeToLiveCommand(timeToLive));
 */
export function receiptsTable(name: string = DEFAULT_TABLE): ReceiptsTable {
  return {
    create: {
      TableName: name,
      KeySchema: [{ AttributeName: KEY_ATTRIBUTE, KeyType: 'HASH' }],
      AttributeDefinitions: [{ AttributeName: KEY_ATTRIBUTE, AttributeType: 'S' }],
      BillingMode: 'PAY_PER_REQUEST',
    },
    timeToLive: {
      TableName: name,
      TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true },
    },
  };
}
