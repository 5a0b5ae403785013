/** The shared HTTP suite through a node:http ↔ fetch server, then what only the fetch adapter has. */
import { runAdapterConformance } from '@webhook-idempotency/adapter-conformance';

import { fetchApp } from '@webhook-idempotency/adapter-conformance/apps/fetch';

runAdapterConformance(fetchApp);
