/** The shared HTTP suite on Hono through @hono/node-server, then what only Hono has. */
import { runAdapterConformance } from '@webhook-idempotency/adapter-conformance';
import { honoApp } from '@webhook-idempotency/adapter-conformance/apps/hono';

runAdapterConformance(honoApp);
