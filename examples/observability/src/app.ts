/**
 * @module An Express webhook endpoint whose guard events feed Prometheus (`GET /metrics`) and
 * OpenTelemetry at once: `instrument()` adds the OpenTelemetry listener next to the Prometheus one.
 */
// #region app
import { InMemoryStore } from '@webhook-idempotency/core';
import { idempotent } from '@webhook-idempotency/express';
import { instrument } from '@webhook-idempotency/opentelemetry';
import express from 'express';
import { Registry } from 'prom-client';
import { z } from 'zod';
import { prometheusListener } from './prometheus';
// #endregion app
import type { Store } from '@webhook-idempotency/core';
import type { TelemetryOptions } from '@webhook-idempotency/opentelemetry';
import type { Express } from 'express';

// #region app

/**
 * The shop's own order event, as a Standard Schema (zod): the handler's type comes from it. No
 * provider preset names these unsigned events, so there is no route set to hang `validated()` on.
 */
const Order = z.object({ id: z.string(), total: z.number().nonnegative() });
// #endregion app

/** Options of {@link buildApp}. */
export interface ObservedAppOptions {
  /** Where receipts live. Defaults to an `InMemoryStore` (one process). */
  store?: Store;
  /** Where the metrics are registered and scraped from. Defaults to a new registry. */
  registry?: Registry;
  /** Tracer and meter providers; defaults to the global ones of `@opentelemetry/api`. */
  telemetry?: TelemetryOptions;
}

/** The orders webhook, guarded, plus `GET /metrics` for Prometheus. */
export function buildApp(options: ObservedAppOptions = {}): Express {
  // #region app
  const registry = options.registry ?? new Registry();
  const store = options.store ?? new InMemoryStore();
  const app = express();

  app.post(
    '/webhooks/orders',
    express.raw({ type: 'application/json' }),
    idempotent(
      instrument(
        {
          store,
          provider: 'shop',
          key: (req) => req.get('x-event-id'),
          onEvent: prometheusListener(registry), // kept: instrument() calls it after OpenTelemetry
        },
        options.telemetry,
      ),
    ),
    (req, res) => {
      // Throws on an order without a valid total: the receipt fails and Express answers 500.
      const order = Order.parse(JSON.parse(req.body.toString('utf8')));
      // … book the order once …
      res.status(201).json({ booked: order.id });
    },
  );

  app.get('/metrics', async (_req, res) => {
    res.type(registry.contentType).send(await registry.metrics());
  });
  // #endregion app
  return app;
}
