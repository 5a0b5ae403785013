/** @module Serves the example on PORT (default 3000): POST /webhooks/orders, GET /metrics. */
import { buildApp } from './app';

buildApp().listen(Number(process.env.PORT ?? 3000), () => {
  console.log(`listening on :${process.env.PORT ?? 3000}; metrics at /metrics`);
});
