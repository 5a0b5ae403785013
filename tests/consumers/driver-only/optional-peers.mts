// Compiled (strict, `skipLibCheck: false`) by tests/consumers/packed-tarballs.test.ts beside
// sqlite-app.mts: the packages whose peers are optional (the dashboard's frameworks, the CLI's
// drivers) or that need none, each imported from an app that installed only Express and
// better-sqlite3 of them (and @opentelemetry/api, the OpenTelemetry package's own peer).
import Database from 'better-sqlite3';
import { InMemoryStore } from '@webhook-idempotency/core';
import { type CliIo, ExitCode, run } from '@webhook-idempotency/cli';
import { createDashboard, InMemoryReceipts } from '@webhook-idempotency/dashboard';
import { expressDashboard } from '@webhook-idempotency/dashboard/express';
import { fetchDashboard } from '@webhook-idempotency/dashboard/fetch';
import { withIdempotency } from '@webhook-idempotency/fetch';
import { telemetryListener } from '@webhook-idempotency/opentelemetry';
import * as providers from '@webhook-idempotency/providers';
import { ReceiptsAdmin } from '@webhook-idempotency/sql';

const receipts = new ReceiptsAdmin(new Database(':memory:'));
const authorize = () => true;
export const made = {
  dashboard: createDashboard({
    basePath: '/admin',
    authorize,
    receipts: new InMemoryReceipts(new InMemoryStore()),
  }),
  express: expressDashboard({ basePath: '/admin', authorize, receipts }),
  fetch: fetchDashboard({ basePath: '/admin', authorize, receipts }),
  stripe: providers.stripe({ secret: 'whsec_x' }),
  listener: telemetryListener(),
  exit: (io: CliIo): Promise<number> => run(['status'], io),
  ok: ExitCode.OK,
  withIdempotency,
};
