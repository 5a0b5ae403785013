/**
 * The shared HTTP suite, once per event source: a node:http server turns each request into that
 * source's event (API Gateway REST 1.0, HTTP API 2.0, Function URL, ALB with and without
 * multi-value headers), invokes the guarded handler with a Lambda context and reads its result
 * back as that source reads it.
 */
import { runAdapterConformance } from '@webhook-idempotency/adapter-conformance';
import { lambdaApps } from '@webhook-idempotency/adapter-conformance/apps/lambda';

runAdapterConformance(lambdaApps);
