/** The shared HTTP suite through real listening Nest apps, on the Express and the Fastify platform. */
import { runAdapterConformance } from '@webhook-idempotency/adapter-conformance';
import { nestApps } from '@webhook-idempotency/adapter-conformance/apps/nestjs';

runAdapterConformance(nestApps);
