// migrations/20260101000000_webhook_receipts.ts
import { Schema } from '@webhook-idempotency/sql';
export const { up, down } = Schema.knexMigration();
